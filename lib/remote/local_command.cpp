#include "lib/remote/local_command.hpp"

#include <sys/wait.h>

#include <cstdio>

namespace meshplan {

LocalResult PopenLocalCommand::run(const std::string& command) const {
  LocalResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    r.started = false;
    r.exit_status = -1;
    return r;
  }
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0)
    r.out.append(buf, got);
  const int status = ::pclose(pipe);
  r.exit_status = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace meshplan
