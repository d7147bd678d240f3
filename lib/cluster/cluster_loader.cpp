#include "lib/cluster/cluster_loader.hpp"

#include "lib/cluster/cluster_reader.hpp"
#include "lib/cluster/generators.hpp"
#include "lib/core/document.hpp"

namespace meshplan {

Cluster load_cluster(std::string_view text, const std::string& file_name, const Catalog& catalog) {
  DocNode root = parse_document(text, file_name);
  Cluster cluster = read_cluster(root, catalog);
  expand_generators(cluster, catalog);
  return cluster;
}

Cluster load_cluster_file(const std::string& path, const FileSystem& fs, const Catalog& catalog) {
  return load_cluster(fs.read_file(path), path, catalog);
}

}  // namespace meshplan
