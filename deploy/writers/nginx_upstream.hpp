// nginx in front of a plan's replicas: one upstream of the replicas' HTTP servers, weighted by the
// plan's request shares, in a complete config a user runs from the launch folder without root
// (`nginx -p "$PWD" -c nginx.conf`: pid file, logs and temporary files under that folder).
#pragma once

#include <string>
#include <vector>

namespace meshplan {

// The port nginx listens on: beside, not on, the engines' own (8000, 8080, 52415), so that nginx
// may run on a replica's host.
inline constexpr int kNginxListenPort = 8100;

// One replica's HTTP server as nginx reaches it.
struct NginxServer {
  std::string address;  // IPv4 or host name
  int port = 0;
  int weight = 1;
  std::string note;  // a comment after the line ("replica 1: mac-1 (mlx-lm), 50 %")
};

// nginx's weight for a fraction of the requests: share x 100 rounded, at least 1 (nginx refuses
// weight=0, and a replica of the plan takes some requests).
int nginx_weight(double share);

// The config: events {}, http { upstream; server listening on `listen_port` that proxies every
// path to the upstream without buffering (streamed tokens pass as they come) and with long
// timeouts (a long answer is not cut off) }. An input error for an address or port nginx cannot
// take.
std::string render_nginx_conf(const std::vector<NginxServer>& servers, int listen_port);

}  // namespace meshplan
