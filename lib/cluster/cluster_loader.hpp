// The one way to load a cluster file: parse (JSON or YAML), read and check the schema, expand
// generators and assign ports. Every failure is an input error naming the file and position.
#pragma once

#include <string>
#include <string_view>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/file_system.hpp"

namespace meshplan {

Cluster load_cluster(std::string_view text, const std::string& file_name, const Catalog& catalog);
Cluster load_cluster_file(const std::string& path, const FileSystem& fs, const Catalog& catalog);

}  // namespace meshplan
