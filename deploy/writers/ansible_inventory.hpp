// An Ansible YAML inventory of the ranks' hosts: each host once with its variables (ansible_host,
// ansible_user when known, chip, memory_bytes, rank, backend, address, layers), under the group of
// its role (head = rank 0, workers = the others) and, by name only, under its OS (macos, linux).
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

std::string write_ansible_inventory(const EmitInput& in);

}  // namespace meshplan
