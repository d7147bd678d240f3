// The cabling changes of `meshplan advise` (solvers/advice_changes.hpp): a Thunderbolt cable on
// free ports or one moved from a full port, a Thunderbolt 4 cable or port replaced by Thunderbolt
// 5, a direct network cable between Linux hosts; and plugging a cable into a scenario.
#pragma once

#include <string>
#include <vector>

#include "solvers/advice/change.hpp"
#include "topologies/tb_fabric.hpp"

namespace meshplan {

bool is_mac_host(const Host& h, const Catalog& catalog);
// Both hosts have RDMA enabled.
bool rdma_on(const Cluster& c, const std::string& a, const std::string& b);
// Marks the scenario invalid (the first reason is kept).
void mark_invalid(Scenario& s, const std::string& why);

// Plugs a Thunderbolt cable between a and b on the ports free in the scenario now, lowest first
// (Thunderbolt 5 first), with `verb` ("connect") in its step; "" or why not.
std::string plug_cable(Scenario& s, const Catalog& catalog, const std::string& a,
                       const std::string& b, const std::string& verb);

void add_cable_changes(const ChangeSources& in, const TbFabric& fabric, std::vector<Change>& out);
void upgrade_changes(const ChangeSources& in, const TbFabric& fabric, std::vector<Change>& out);
void network_cable_changes(const ChangeSources& in, std::vector<Change>& out);

}  // namespace meshplan
