#include "deploy/configure/apply_steps.hpp"

#include <gtest/gtest.h>

namespace meshplan::apply_steps_test {
namespace {

HostState linux_state(bool eth1_up, std::vector<std::string> eth1_addresses) {
  HostState s;
  s.root = true;
  s.interfaces = {{"mgmt0", true, {"10.1.0.2/30"}}, {"eth1", eth1_up, eth1_addresses}};
  s.ssh_interface = s.default_interface = "mgmt0";
  return s;
}

HostSetup linux_host(const std::string& iface = "eth1") {
  HostSetup h;
  h.host = "node-1";
  h.linux = true;
  h.direct = {{iface, "192.168.0.1", "192.168.0.2"}};
  return h;
}

std::vector<std::string> commands(const HostSteps& s) {
  std::vector<std::string> out;
  for (const auto& step : s.steps)
    out.push_back(step.command);
  return out;
}

std::vector<std::string> undos(const HostSteps& s) {
  std::vector<std::string> out;
  for (const auto& step : s.steps)
    out.push_back(step.undo);
  return out;
}

TEST(apply_steps_test, linux_cable_gets_link_up_and_its_address_each_with_its_undo) {
  HostSteps s = setup_steps(linux_host(), linux_state(false, {}));
  ASSERT_TRUE(s.refusals.empty());
  EXPECT_EQ(commands(s), (std::vector<std::string>{"ip link set dev eth1 up",
                                                   "ip addr replace 192.168.0.1/30 dev eth1"}));
  EXPECT_EQ(undos(s), (std::vector<std::string>{"ip link set dev eth1 down",
                                                "ip addr del 192.168.0.1/30 dev eth1"}));
}

TEST(apply_steps_test, only_what_differs_runs) {
  EXPECT_EQ(commands(setup_steps(linux_host(), linux_state(true, {}))),
            (std::vector<std::string>{"ip addr replace 192.168.0.1/30 dev eth1"}));
  EXPECT_TRUE(setup_steps(linux_host(), linux_state(true, {"192.168.0.1/30"})).steps.empty());
  // The same address with another prefix is not the plan's.
  EXPECT_EQ(setup_steps(linux_host(), linux_state(true, {"192.168.0.1/24"})).steps.size(), 1u);
}

TEST(apply_steps_test, not_root_runs_through_sudo_without_a_password_prompt) {
  HostState st = linux_state(true, {});
  st.root = false;
  EXPECT_EQ(commands(setup_steps(linux_host(), st)),
            (std::vector<std::string>{"sudo -n ip addr replace 192.168.0.1/30 dev eth1"}));
}

TEST(apply_steps_test, the_session_and_default_route_interfaces_are_refused) {
  HostSteps s = setup_steps(linux_host("mgmt0"), linux_state(true, {}));
  EXPECT_TRUE(s.steps.empty());
  ASSERT_EQ(s.refusals.size(), 1u);
  EXPECT_NE(s.refusals[0].find("mgmt0 carries this SSH session"), std::string::npos);

  HostState st = linux_state(true, {});
  st.ssh_interface = "lo";
  s = setup_steps(linux_host("mgmt0"), st);
  ASSERT_EQ(s.refusals.size(), 1u);
  EXPECT_NE(s.refusals[0].find("default route"), std::string::npos);

  s = teardown_steps(linux_host("eth9"), linux_state(true, {}));
  ASSERT_EQ(s.refusals.size(), 1u);
  EXPECT_NE(s.refusals[0].find("eth9 is not on the host"), std::string::npos);
}

TEST(apply_steps_test, a_mac_in_the_file_that_runs_linux_is_refused) {
  HostSetup h = linux_host();
  h.linux = false;
  HostSteps s = setup_steps(h, linux_state(true, {}));
  ASSERT_EQ(s.refusals.size(), 1u);
  EXPECT_NE(s.refusals[0].find("says macOS but the host runs Linux"), std::string::npos);
}

TEST(apply_steps_test, linux_teardown_removes_only_the_planned_address_that_is_there) {
  EXPECT_EQ(commands(teardown_steps(linux_host(), linux_state(true, {"192.168.0.1/30"}))),
            (std::vector<std::string>{"ip addr del 192.168.0.1/30 dev eth1"}));
  EXPECT_TRUE(teardown_steps(linux_host(), linux_state(true, {"10.9.0.1/24"})).steps.empty());
}

HostState mac_state(bool bridge_up) {
  HostState s;
  s.macos = true;
  s.interfaces = {{"en0", true, {"10.0.0.5/24"}},
                  {"en2", true, {}},
                  {"en3", true, {"192.168.7.1/24"}},
                  {"bridge0", bridge_up, {}}};
  s.ssh_interface = s.default_interface = "en0";
  return s;
}

HostSetup mac_host() {
  HostSetup h;
  h.host = "m3-ultra-1";
  h.links = {{"en2", "192.168.0.1", "192.168.0.2"}, {"en3", "192.168.0.5", "192.168.0.6"}};
  return h;
}

TEST(apply_steps_test, mac_gets_mlx_commands_and_puts_back_what_was_there) {
  HostSteps s = setup_steps(mac_host(), mac_state(true));
  EXPECT_EQ(commands(s), (std::vector<std::string>{
                             "sudo -n ifconfig bridge0 down",
                             "sudo -n ifconfig en2 inet 192.168.0.1 netmask 255.255.255.252",
                             "sudo -n route change 192.168.0.2 -interface en2",
                             "sudo -n ifconfig en3 inet 192.168.0.5 netmask 255.255.255.252",
                             "sudo -n route change 192.168.0.6 -interface en3"}));
  EXPECT_EQ(undos(s),
            (std::vector<std::string>{"sudo -n ifconfig bridge0 up",
                                      "sudo -n ifconfig en2 inet 192.168.0.1 delete",
                                      "sudo -n route delete 192.168.0.2 -interface en2",
                                      "sudo -n ifconfig en3 inet 192.168.7.1 netmask 255.255.255.0",
                                      "sudo -n route delete 192.168.0.6 -interface en3"}));
}

TEST(apply_steps_test, mac_as_planned_needs_nothing_and_tears_down_in_reverse) {
  HostState s = mac_state(false);
  s.interfaces[1].addresses = {"192.168.0.1/30"};
  s.interfaces[2].addresses = {"192.168.0.5/30"};
  s.routes = {{"192.168.0.2", "en2"}, {"192.168.0.6", "en3"}};
  EXPECT_TRUE(setup_steps(mac_host(), s).steps.empty());
  EXPECT_EQ(commands(teardown_steps(mac_host(), s)),
            (std::vector<std::string>{"sudo -n route delete 192.168.0.6 -interface en3",
                                      "sudo -n ifconfig en3 inet 192.168.0.5 delete",
                                      "sudo -n route delete 192.168.0.2 -interface en2",
                                      "sudo -n ifconfig en2 inet 192.168.0.1 delete",
                                      "sudo -n ifconfig bridge0 up"}));
  HostSetup keep = mac_host();
  keep.restore_bridge = false;  // bridge0 was down before setup: it stays down
  EXPECT_EQ(teardown_steps(keep, s).steps.size(), 4u);
}

TEST(apply_steps_test, interface_names_are_quoted_for_the_shell) {
  HostSetup h = linux_host("eth;rm");
  HostState st = linux_state(true, {});
  st.interfaces.push_back({"eth;rm", true, {}});
  EXPECT_EQ(commands(setup_steps(h, st)),
            (std::vector<std::string>{"ip addr replace 192.168.0.1/30 dev 'eth;rm'"}));
}

}  // namespace
}  // namespace meshplan::apply_steps_test
