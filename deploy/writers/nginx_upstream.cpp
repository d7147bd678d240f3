#include "deploy/writers/nginx_upstream.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

// An address goes into the config as one bare word: letters, digits, '.', '-', ':' only (no
// ';', quote, space or brace could end the directive or open a block).
const std::string& nginx_word(const std::string& value) {
  bool ok = !value.empty() && value.front() != '-';
  for (char c : value)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':');
  if (!ok)
    throw input_error("address \"{}\": expected an IPv4 address or host name for nginx's upstream",
                      value);
  return value;
}

// A comment stays on its line.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace

int nginx_weight(double share) {
  const long w = std::lround(share * 100);
  return w < 1 ? 1 : static_cast<int>(w);
}

std::string render_nginx_conf(const std::vector<NginxServer>& servers, int listen_port) {
  if (servers.empty()) throw input_error("nginx: expected at least one replica to balance over");
  if (listen_port < 1 || listen_port > 65535)
    throw input_error("nginx: listen port {}: expected 1 to 65535", listen_port);
  std::string upstream;
  for (const NginxServer& s : servers) {
    if (s.port < 1 || s.port > 65535 || s.weight < 1)
      throw input_error("nginx: server {}:{} weight {}: expected a port of 1 to 65535, weight 1+",
                        s.address, s.port, s.weight);
    // An IPv6 address is written in brackets.
    const std::string& a = nginx_word(s.address);
    std::string host = a.find(':') == std::string::npos ? a : "[" + a + "]";
    upstream += fmt::format("        server {}:{} weight={};{}\n", host, s.port, s.weight,
                            s.note.empty() ? "" : "  # " + one_line(s.note));
  }
  return fmt::format(
      R"(# nginx in front of {n} replicas of the model: requests go to each by its weight (its share of
# the plan's requests, in percent). Run it in this folder, on any host that reaches every replica:
#   nginx -p "$PWD" -c nginx.conf          (stop: nginx -p "$PWD" -c nginx.conf -s stop)
# The pid file, logs and temporary files stay in this folder: no root is needed.
worker_processes 1;
pid nginx.pid;
error_log error.log;

events {{}}

http {{
    access_log access.log;
    client_body_temp_path client_body_temp;
    proxy_temp_path proxy_temp;
    fastcgi_temp_path fastcgi_temp;
    uwsgi_temp_path uwsgi_temp;
    scgi_temp_path scgi_temp;
    # Prompts can be long.
    client_max_body_size 64m;

    upstream meshplan_replicas {{
{upstream}        keepalive 16;
    }}

    server {{
        listen {listen};
        location / {{
            proxy_pass http://meshplan_replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            # Streamed tokens pass as they come; a long answer is not cut off.
            proxy_buffering off;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
        }}
    }}
}}
)",
      fmt::arg("n", servers.size()), fmt::arg("upstream", upstream),
      fmt::arg("listen", listen_port));
}

}  // namespace meshplan
