#include "deploy/configure/host_state.hpp"

#include <gtest/gtest.h>

#include "lib/probes/probe_set.hpp"

namespace meshplan::host_state_test {
namespace {

const char* kLinux = R"(@@uid 1000
@@user ops
@@sudo yes
@@session 10.1.0.2
@@ip_path /usr/sbin/ip
@@ip
[{"ifindex":1,"ifname":"lo","flags":["LOOPBACK","UP","LOWER_UP"],"link_type":"loopback","addr_info":[{"family":"inet","local":"127.0.0.1","prefixlen":8}]},
 {"ifindex":2,"ifname":"mgmt0","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"link_type":"ether","addr_info":[{"family":"inet","local":"10.1.0.2","prefixlen":30}]},
 {"ifindex":3,"ifname":"eth1","flags":["BROADCAST","MULTICAST"],"link_type":"ether","addr_info":[{"family":"inet","local":"192.168.0.1","prefixlen":30},{"family":"inet","local":"192.168.9.1","prefixlen":24},{"family":"inet6","local":"fe80::1","prefixlen":64}]}]
@@default
[{"dst":"default","gateway":"10.1.0.1","dev":"mgmt0"}]
@@end
)";

const char* kMac = R"(@@uid 501
@@user admin
@@sudo no
@@session 10.0.0.5
@@ifconfig
en0: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500
	inet 10.0.0.5 netmask 0xffffff00 broadcast 10.0.0.255
	status: active
en2: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500
	inet 192.168.0.1 netmask 0xfffffffc broadcast 192.168.0.3
	status: active
bridge0: flags=8822<BROADCAST,SMART,SIMPLEX,MULTICAST> mtu 1500
	status: inactive
@@netstat
Routing tables

Internet:
Destination        Gateway            Flags               Netif Expire
default            10.0.0.1           UGScg                 en1
192.168.0.2        link#9             UHLWIi                en2
@@end
)";

TEST(host_state_test, linux_state_has_every_address_and_the_session_and_default_interfaces) {
  HostState s = parse_host_state(kLinux);
  EXPECT_FALSE(s.macos);
  EXPECT_FALSE(s.root);
  EXPECT_TRUE(s.sudo);
  EXPECT_EQ(s.privileged(), "sudo -n ");
  ASSERT_NE(s.find("eth1"), nullptr);
  EXPECT_FALSE(s.find("eth1")->up);
  EXPECT_EQ(s.find("eth1")->addresses,
            (std::vector<std::string>{"192.168.0.1/30", "192.168.9.1/24"}));
  EXPECT_TRUE(s.find("eth1")->has("192.168.9.1/24"));
  EXPECT_FALSE(s.find("eth1")->has("192.168.9.1/30"));
  EXPECT_EQ(s.ssh_interface, "mgmt0");
  EXPECT_EQ(s.default_interface, "mgmt0");
  EXPECT_EQ(s.sudoers_line(), "ops ALL=(root) NOPASSWD: /usr/sbin/ip");
}

TEST(host_state_test, mac_state_reads_ifconfig_and_the_routing_table) {
  HostState s = parse_host_state(kMac);
  EXPECT_TRUE(s.macos);
  EXPECT_FALSE(s.sudo);
  EXPECT_EQ(s.find("en2")->addresses, (std::vector<std::string>{"192.168.0.1/30"}));
  EXPECT_FALSE(s.find("bridge0")->up);
  EXPECT_EQ(s.routes.at("192.168.0.2"), "en2");
  EXPECT_EQ(s.default_interface, "en1");
  EXPECT_EQ(s.ssh_interface, "en0");
  EXPECT_EQ(s.sudoers_line(), "admin ALL=(root) NOPASSWD: /sbin/ifconfig, /sbin/route");
}

TEST(host_state_test, root_needs_no_sudo) {
  std::string out = kLinux;
  out.replace(out.find("@@uid 1000"), 10, "@@uid 0");
  EXPECT_EQ(parse_host_state(out).privileged(), "");
}

TEST(host_state_test, other_output_is_refused_with_what_was_expected) {
  EXPECT_THROW(parse_host_state("bash: ip: command not found\n"), ProbeParseError);
  EXPECT_THROW(parse_host_state("@@uid 0\n@@end\n"), ProbeParseError);
  std::string broken = kLinux;
  broken.replace(broken.find("[{\"dst\""), 6, "{oops");
  try {
    parse_host_state(broken);
    FAIL() << "accepted a broken route table";
  } catch (const ProbeParseError& e) {
    EXPECT_NE(std::string(e.what()).find("ip -j route show default"), std::string::npos);
  }
}

}  // namespace
}  // namespace meshplan::host_state_test
