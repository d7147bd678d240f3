#include "topologies/setup_steps.hpp"

#include <gtest/gtest.h>

#include "deploy/configure/apply_steps.hpp"
#include "topologies/setup_commands.hpp"

namespace meshplan::setup_steps_test {
namespace {

HostSetup mac(std::vector<InterfaceAddress> links, std::vector<InterfaceAddress> direct = {}) {
  HostSetup h;
  h.host = "m3-ultra-1";
  h.links = std::move(links);
  h.direct = std::move(direct);
  return h;
}

HostSetup linux_host(std::vector<InterfaceAddress> direct) {
  HostSetup h;
  h.host = "node-1";
  h.linux = true;
  h.direct = std::move(direct);
  return h;
}

std::vector<HostSetup> setups() {
  const InterfaceAddress en2{"en2", "192.168.0.1", "192.168.0.2"};
  const InterfaceAddress en3{"en3", "192.168.0.5", "192.168.0.6"};
  const InterfaceAddress en9{"en9", "192.168.0.9", "192.168.0.10"};
  std::vector<HostSetup> out = {mac({en2, en3}), mac({en2}, {en9}), mac({}, {en9}), mac({})};
  HostSetup kept_down = mac({en2, en3});
  kept_down.restore_bridge = false;
  out.push_back(kept_down);
  out.push_back(linux_host(
      {{"eth1", "192.168.0.1", "192.168.0.2"}, {"eth;2", "192.168.0.5", "192.168.0.6"}}));
  return out;
}

// A host with none of the plan's changes: its interfaces down without addresses, no host routes,
// bridge0 up. Root, so that the applied commands carry no sudo.
HostState untouched(const HostSetup& h) {
  HostState s;
  s.macos = !h.linux;
  s.root = true;
  s.interfaces = {{"mgmt0", true, {"10.1.0.2/24"}}};
  for (const auto& l : h.links)
    s.interfaces.push_back({l.interface, false, {}});
  for (const auto& l : h.direct)
    s.interfaces.push_back({l.interface, false, {}});
  if (!h.linux) s.interfaces.push_back({"bridge0", true, {}});
  s.ssh_interface = s.default_interface = "mgmt0";
  return s;
}

// The same host once setup has run: every step's change in effect.
HostState set_up(const HostSetup& h) {
  HostState s = untouched(h);
  for (auto& i : s.interfaces)
    i.up = i.name != "bridge0" || h.linux;
  auto add = [&](const InterfaceAddress& l) {
    for (auto& i : s.interfaces)
      if (i.name == l.interface) i.addresses.push_back(l.address + "/30");
  };
  for (const auto& l : h.links) {
    add(l);
    s.routes[l.peer_address] = l.interface;
  }
  for (const auto& l : h.direct)
    add(l);
  return s;
}

std::vector<std::string> under_sudo(const std::vector<std::string>& commands) {
  std::vector<std::string> out;
  for (const auto& c : commands)
    out.push_back("sudo " + c);
  return out;
}

TEST(setup_steps_test, each_step_knows_its_change_its_command_and_its_undo) {
  std::vector<SetupStep> steps = setup_steps(setups()[1]);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].change, StepChange::kBridgeDown);
  EXPECT_EQ(steps[1].what(), "192.168.0.1/30 on en2");
  EXPECT_EQ(steps[1].command("sudo "),
            "sudo ifconfig en2 inet 192.168.0.1 netmask 255.255.255.252");
  EXPECT_EQ(steps[1].undo(""), "ifconfig en2 inet 192.168.0.1 delete");
  EXPECT_EQ(steps[2].what(), "route to 192.168.0.2 through en2");
  EXPECT_EQ(steps[2].what_undone(), "route to 192.168.0.2 off en2");
  EXPECT_EQ(steps[3].change, StepChange::kAddress);
  EXPECT_EQ(steps[3].interface, "en9");

  std::vector<SetupStep> on_linux = setup_steps(setups().back());
  ASSERT_EQ(on_linux.size(), 4u);
  EXPECT_EQ(on_linux[0].command(""), "ip link set dev eth1 up");
  EXPECT_EQ(on_linux[3].undo(""), "ip addr del 192.168.0.5/30 dev 'eth;2'");
}

TEST(setup_steps_test, an_address_step_with_another_prefix_restores_that_address) {
  SetupStep s{.change = StepChange::kAddress, .interface = "en3", .address = "10.0.0.5"};
  s.prefix = 24;
  EXPECT_EQ(s.command(""), "ifconfig en3 inet 10.0.0.5 netmask 255.255.255.0");
  s.linux = true;
  EXPECT_EQ(s.command(""), "ip addr replace 10.0.0.5/24 dev en3");
}

TEST(setup_steps_test, printed_setup_is_what_an_untouched_host_gets_applied) {
  for (const HostSetup& h : setups()) {
    SCOPED_TRACE(h.host + (h.links.empty() ? "" : " with links") +
                 (h.direct.empty() ? "" : " with direct cables"));
    HostSteps applied = setup_steps(h, untouched(h));
    ASSERT_TRUE(applied.refusals.empty());
    std::vector<std::string> commands;
    for (const auto& a : applied.steps)
      commands.push_back(a.command);
    EXPECT_EQ(setup_commands(h), under_sudo(commands));
  }
}

TEST(setup_steps_test, printed_teardown_is_the_applied_undos_last_first_as_teardown_keeps_them) {
  for (const HostSetup& h : setups()) {
    SCOPED_TRACE(h.host + (h.restore_bridge ? "" : " with bridge0 kept down"));
    HostSteps applied = setup_steps(h, untouched(h));
    std::vector<SetupStep> model = setup_steps(h);
    ASSERT_EQ(applied.steps.size(), model.size()) << "an untouched host needs every step";
    // Teardown leaves links up, and bridge0 down where it was down before setup.
    std::vector<std::string> undos;
    for (size_t i = model.size(); i-- > 0;) {
      if (model[i].change == StepChange::kLinkUp) continue;
      if (model[i].change == StepChange::kBridgeDown && !h.restore_bridge) continue;
      undos.push_back(applied.steps[i].undo);
    }
    EXPECT_EQ(teardown_commands(h), under_sudo(undos));

    // And teardown --apply on the host as setup left it runs those same undos.
    HostSteps taken_back = teardown_steps(h, set_up(h));
    ASSERT_TRUE(taken_back.refusals.empty());
    std::vector<std::string> commands;
    for (const auto& a : taken_back.steps)
      commands.push_back(a.command);
    EXPECT_EQ(commands, undos);
    EXPECT_TRUE(setup_steps(h, set_up(h)).steps.empty());
  }
}

}  // namespace
}  // namespace meshplan::setup_steps_test
