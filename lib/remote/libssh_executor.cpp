#include "lib/remote/libssh_executor.hpp"

#include <libssh/libssh.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

using Clock = std::chrono::steady_clock;

struct SessionDeleter {
  void operator()(ssh_session s) const {
    if (ssh_is_connected(s)) ssh_disconnect(s);
    ssh_free(s);
  }
};
struct ChannelDeleter {
  void operator()(ssh_channel c) const {
    if (ssh_channel_is_open(c)) ssh_channel_close(c);
    ssh_channel_free(c);
  }
};
struct KeyDeleter {
  void operator()(ssh_key k) const { ssh_key_free(k); }
};
using Session = std::unique_ptr<ssh_session_struct, SessionDeleter>;
using Channel = std::unique_ptr<ssh_channel_struct, ChannelDeleter>;
using Key = std::unique_ptr<ssh_key_struct, KeyDeleter>;

// known_hosts is read and (with accept-new) written by several sessions at once.
std::mutex& known_hosts_mutex() {
  static std::mutex m;
  return m;
}

ExecResult failed(HostFailureKind kind, std::string message) {
  ExecResult r;
  r.failure = kind;
  r.message = std::move(message);
  return r;
}

std::string option_string(ssh_session s, ssh_options_e which) {
  char* value = nullptr;
  if (ssh_options_get(s, which, &value) != SSH_OK || value == nullptr) return "";
  std::string out = value;
  ssh_string_free_char(value);
  return out;
}

// "ssh-ed25519 SHA256:abc..." for messages.
std::string fingerprint(ssh_session s) {
  ssh_key raw = nullptr;
  if (ssh_get_server_publickey(s, &raw) != SSH_OK) return "(key unavailable)";
  Key key(raw);
  unsigned char* hash = nullptr;
  size_t len = 0;
  if (ssh_get_publickey_hash(key.get(), SSH_PUBLICKEY_HASH_SHA256, &hash, &len) != 0)
    return "(key unavailable)";
  char* text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, len);
  ssh_clean_pubkey_hash(&hash);
  std::string out =
      std::string(ssh_key_type_to_char(ssh_key_type(key.get()))) + " " + (text ? text : "?");
  if (text) ssh_string_free_char(text);
  return out;
}

// How known_hosts names the host: "host" on port 22, "[host]:port" otherwise.
std::string known_hosts_name(const std::string& host, unsigned port) {
  return port == 22 ? host : "[" + host + "]:" + std::to_string(port);
}

ExecResult connect_failure(ssh_session s, const std::string& where, int timeout_s) {
  std::string error = ssh_get_error(s);
  bool timeout =
      error.find("imeout") != std::string::npos || error.find("timed out") != std::string::npos;
  if (timeout)
    return failed(HostFailureKind::kTimedOut,
                  fmt::format("no SSH answer from {} within {} s ({})", where, timeout_s, error));
  return failed(HostFailureKind::kUnreachable,
                fmt::format("cannot connect to {}: {}", where, error));
}

// The host key against known_hosts (recorded first under accept-new); a failure, or nullopt
// when the key is trusted.
std::optional<ExecResult> check_host_key(ssh_session s, const std::string& host, unsigned real_port,
                                         const std::string& where, const SshOptions& options) {
  std::lock_guard<std::mutex> lock(known_hosts_mutex());
  std::string file = option_string(s, SSH_OPTIONS_KNOWNHOSTS);
  if (file.empty()) file = "~/.ssh/known_hosts";
  std::string name = known_hosts_name(host, real_port);
  ssh_known_hosts_e state = ssh_session_is_known_server(s);
  switch (state) {
    case SSH_KNOWN_HOSTS_OK:
      break;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
      return failed(
          HostFailureKind::kHostKeyChanged,
          fmt::format(
              "{} now presents {}, which differs from the key {} holds for {}; this can be an "
              "attack. If the host was reinstalled, remove the old key with: ssh-keygen -R '{}' "
              "-f {}",
              where, fingerprint(s), file, name, name, file));
    case SSH_KNOWN_HOSTS_NOT_FOUND:
    case SSH_KNOWN_HOSTS_UNKNOWN:
      if (options.policy == HostKeyPolicy::kAcceptNew) {
        if (ssh_session_update_known_hosts(s) != SSH_OK)
          return failed(HostFailureKind::kHostKeyUnknown,
                        fmt::format("cannot record the host key of {} in {}: {}", where, file,
                                    ssh_get_error(s)));
        break;
      }
      return failed(
          HostFailureKind::kHostKeyUnknown,
          fmt::format("{} is not in {} (its key: {}). Check the fingerprint, then trust it with: "
                      "ssh-keyscan -p {} {} >> {}   (or rerun with --host-key-policy accept-new)",
                      name, file, fingerprint(s), real_port, host, file));
    case SSH_KNOWN_HOSTS_ERROR:
    default:
      return failed(HostFailureKind::kHostKeyUnknown,
                    fmt::format("cannot check the host key of {} against {}: {}", where, file,
                                ssh_get_error(s)));
  }
  return std::nullopt;
}

// The given identity first, then the agent and the config's/default keys; a failure, or nullopt
// when the host let us in.
std::optional<ExecResult> authenticate(ssh_session s, const std::string& where,
                                       const SshOptions& options) {
  int auth = SSH_AUTH_DENIED;
  if (!options.identity.empty()) {
    ssh_key raw = nullptr;
    if (ssh_pki_import_privkey_file(options.identity.c_str(), nullptr, nullptr, nullptr, &raw) ==
        SSH_OK) {
      Key key(raw);
      auth = ssh_userauth_publickey(s, nullptr, key.get());
    }
  }
  if (auth != SSH_AUTH_SUCCESS && auth != SSH_AUTH_ERROR)
    auth = ssh_userauth_publickey_auto(s, nullptr, nullptr);
  if (auth == SSH_AUTH_ERROR) return connect_failure(s, where, options.timeout_s);
  if (auth != SSH_AUTH_SUCCESS) {
    std::string who = option_string(s, SSH_OPTIONS_USER);
    return failed(
        HostFailureKind::kAuthRefused,
        fmt::format("{} accepted none of the keys offered for user {} (--identity, ssh-agent, "
                    "IdentityFile); "
                    "add your public key to that user's ~/.ssh/authorized_keys or pass --identity",
                    where, who.empty() ? "?" : who));
  }
  return std::nullopt;
}

// Read both streams (a full stderr window would otherwise stall stdout) until EOF, waking on
// whichever has data; time out when neither says anything for timeout_s.
ExecResult read_output(ssh_session s, ssh_channel ch, const std::string& where,
                       const SshOptions& options, ExecResult r) {
  std::unique_ptr<ssh_event_struct, void (*)(ssh_event)> event(ssh_event_new(), ssh_event_free);
  if (!event || ssh_event_add_session(event.get(), s) != SSH_OK)
    return failed(HostFailureKind::kCommandFailed,
                  fmt::format("cannot wait for output from {}", where));
  char buf[16384];
  auto last = Clock::now();
  while (true) {
    int n = ssh_channel_read_nonblocking(ch, buf, sizeof buf, 0);
    if (n > 0) r.out.append(buf, static_cast<size_t>(n));
    int e = n == SSH_ERROR ? SSH_ERROR : ssh_channel_read_nonblocking(ch, buf, sizeof buf, 1);
    if (e > 0) r.err.append(buf, static_cast<size_t>(e));
    if (n == SSH_ERROR || e == SSH_ERROR) {
      ssh_event_remove_session(event.get(), s);
      r.failure = HostFailureKind::kCommandFailed;
      r.message = fmt::format("lost the session to {}: {}", where, ssh_get_error(s));
      return r;
    }
    if (n > 0 || e > 0) {
      last = Clock::now();
      continue;
    }
    if (ssh_channel_is_eof(ch) || !ssh_channel_is_open(ch)) break;
    if (Clock::now() - last > std::chrono::seconds(options.timeout_s)) {
      ssh_event_remove_session(event.get(), s);
      r.failure = HostFailureKind::kTimedOut;
      r.message =
          fmt::format("the command on {} printed nothing for {} s", where, options.timeout_s);
      return r;
    }
    ssh_event_dopoll(event.get(), 100);  // returns as soon as packets arrive
  }
  ssh_event_remove_session(event.get(), s);
  r.exit_status = ssh_channel_get_exit_status(ch);
  if (r.exit_status < 0) {
    // The channel closed without an exit status: the session or the command was killed, so what
    // it did is not known.
    r.failure = HostFailureKind::kCommandFailed;
    r.message = fmt::format("the session to {} ended without the command's exit status", where);
  }
  return r;
}

}  // namespace

LibsshExecutor::LibsshExecutor(SshOptions options) : options_(std::move(options)) {
  static std::once_flag init;
  std::call_once(init, [] { ssh_init(); });
  if (!options_.config_file.empty() && access(options_.config_file.c_str(), R_OK) != 0)
    throw input_error("--ssh-config {}: cannot read the file", options_.config_file);
  if (!options_.identity.empty() && access(options_.identity.c_str(), R_OK) != 0)
    throw input_error("--identity {}: cannot read the private key file", options_.identity);
  if (options_.timeout_s <= 0)
    throw input_error("--timeout {}: expected a positive number of seconds", options_.timeout_s);
}

ExecResult LibsshExecutor::run(const HostTarget& target, const std::string& command,
                               const std::string& input) {
  Session session(ssh_new());
  if (!session) return failed(HostFailureKind::kUnreachable, "cannot create an SSH session");
  ssh_session s = session.get();
  long timeout = options_.timeout_s;
  ssh_options_set(s, SSH_OPTIONS_HOST, target.host.c_str());
  if (!options_.ssh_dir.empty()) ssh_options_set(s, SSH_OPTIONS_SSH_DIR, options_.ssh_dir.c_str());
  // A user set before the config is parsed wins over the config's User.
  std::string user = !target.user.empty() ? target.user : options_.user;
  if (!user.empty()) ssh_options_set(s, SSH_OPTIONS_USER, user.c_str());
  if (ssh_options_parse_config(
          s, options_.config_file.empty() ? nullptr : options_.config_file.c_str()) < 0)
    return failed(HostFailureKind::kUnreachable,
                  fmt::format("cannot use the ssh config: {}", ssh_get_error(s)));
  // The config may set Port, HostName, ConnectTimeout, UserKnownHostsFile: command-line values win.
  int port = target.port ? target.port : options_.port;
  if (port) ssh_options_set(s, SSH_OPTIONS_PORT, &port);
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
  if (!options_.known_hosts.empty())
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, options_.known_hosts.c_str());

  std::string host = option_string(s, SSH_OPTIONS_HOST);
  unsigned real_port = 22;
  ssh_options_get_port(s, &real_port);
  std::string where = fmt::format("{}:{}", host.empty() ? target.host : host, real_port);

  if (ssh_connect(s) != SSH_OK) return connect_failure(s, where, options_.timeout_s);

  if (auto failure = check_host_key(s, host, real_port, where, options_)) return *failure;

  if (auto failure = authenticate(s, where, options_)) return *failure;

  Channel channel(ssh_channel_new(s));
  if (!channel || ssh_channel_open_session(channel.get()) != SSH_OK ||
      ssh_channel_request_exec(channel.get(), command.c_str()) != SSH_OK)
    return failed(HostFailureKind::kCommandFailed,
                  fmt::format("cannot start a command on {}: {}", where, ssh_get_error(s)));
  ssh_channel ch = channel.get();
  ExecResult r;
  r.command_sent = true;
  size_t sent = 0;
  while (sent < input.size()) {
    int n = ssh_channel_write(ch, input.data() + sent, static_cast<uint32_t>(input.size() - sent));
    if (n == SSH_ERROR) {
      r.failure = HostFailureKind::kCommandFailed;
      r.message = fmt::format("lost the session to {}: {}", where, ssh_get_error(s));
      return r;
    }
    sent += static_cast<size_t>(n);
  }
  ssh_channel_send_eof(ch);

  return read_output(s, ch, where, options_, std::move(r));
}

}  // namespace meshplan
