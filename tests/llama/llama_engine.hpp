// Debian sid's llama.cpp run for real on the namespace farm (tests/netns/netns_farm.hpp): the
// chroot that tests/llama/sid_chroot.sh prepares, a tiny random-weight Llama written there, the
// engine's processes started inside a host's namespace and stopped by their PIDs, and what
// llama.cpp's own log says about where each layer went.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace meshplan::testing {

// The chroot (MESHPLAN_LLAMA_CHROOT, else /var/tmp/meshplan-sid).
std::string llama_chroot();
// Empty when llama.cpp can run here; otherwise why not.
std::string llama_unavailable_reason();

// Writes a tiny Llama (F16, `layers` layers) with tests/llama/tiny_llama.py run inside the chroot
// into `folder` (a path as the chroot sees it, e.g. "/meshplan-session/tiny-llama"): model.gguf
// for llama.cpp and config.json for meshplan, which finds them under llama_chroot() + folder.
void write_tiny_llama(const std::string& folder, int layers);

// Processes started in a namespace, `chroot DIR` first; each one's standard output and error go
// to a log file. The destructor stops every one by its PID (SIGTERM, then SIGKILL).
class EngineProcesses {
 public:
  EngineProcesses() = default;
  ~EngineProcesses();
  EngineProcesses(const EngineProcesses&) = delete;
  EngineProcesses& operator=(const EngineProcesses&) = delete;

  // Starts `words` in namespace `netns` inside the chroot, in its folder `cwd`; returns the log
  // file's path (in `log_dir`).
  std::string start(const std::string& netns, const std::string& cwd,
                    const std::vector<std::string>& words, const std::string& log_dir);
  // True while the process whose log is `log` runs.
  bool running(const std::string& log) const;
  void stop_all();

 private:
  struct Started {
    pid_t pid;
    std::string log;
  };
  std::vector<Started> started_;
};

// What llama-server's -v log says: "using device RPCk (ADDR:PORT)" and "layer N assigned to
// device DEV" (llama.cpp src/llama.cpp, src/llama-model.cpp).
struct LlamaPlacement {
  std::map<std::string, std::string> endpoints;  // "RPC0" -> "192.168.0.1:50052"
  std::map<int, std::string> layer_device;       // 0 -> "RPC0"; n_layer is the output layer
};
LlamaPlacement parse_llama_log(const std::string& log);

// One HTTP request to ADDR:PORT (HTTP/1.0, the answer read to its end): the status line's code
// and the body; code 0 when nothing answers within `timeout_ms`.
struct HttpAnswer {
  int code = 0;
  std::string body;
};
HttpAnswer http_request(const std::string& address, int port, const std::string& method,
                        const std::string& path, const std::string& body, int timeout_ms);

}  // namespace meshplan::testing
