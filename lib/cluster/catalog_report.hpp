// The catalog as `meshplan chips` shows it: every chip and machine with the cost-model defaults,
// one entry in detail with the source of each figure, or the chips as JSON.
#pragma once

#include <string>

#include "lib/cluster/catalog.hpp"

namespace meshplan {

// A row per chip, a row per machine (with the chips it comes with), then the cost-model defaults.
std::string catalog_table(const Catalog& catalog);
// Every chip as a JSON list, each figure with its source.
std::string catalog_json(const Catalog& catalog);
// NAME's chips (a chip key, a family prefix such as m3-ultra, or a brand) and machine, in detail
// or as JSON (the chips); an input error with the nearest names when nothing matches.
std::string catalog_entry(const Catalog& catalog, const std::string& name, bool json);

}  // namespace meshplan
