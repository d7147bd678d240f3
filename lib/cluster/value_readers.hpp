// Typed values of cluster files, read from document nodes with errors that name the position
// and the expected form: sizes ("512GiB"), rates ("819GB/s"), FLOP/s ("28.6T"), fractions,
// link kinds, IPv4 addresses and prefixes.
#pragma once

#include <cstdint>
#include <string>

#include "lib/cluster/cluster.hpp"
#include "lib/core/document.hpp"

namespace meshplan {

uint64_t read_size(const DocNode& n);
double read_rate(const DocNode& n);
double read_flops(const DocNode& n);
double read_positive(const DocNode& n, std::string_view what);
double read_fraction(const DocNode& n);
// The date of a measurement, "YYYY-MM-DD" (`measured` on a cable or a host).
std::string read_date(const DocNode& n);
LinkKind read_kind(const DocNode& n);
// "192.168.0.1" or "192.168.0.1/30" (the prefix goes to *prefix when given).
// A dotted-quad IPv4 address (four numbers 0-255).
bool valid_ipv4(std::string_view address);
std::string read_ipv4(const DocNode& n, int* prefix);
int read_prefix(const DocNode& n);

}  // namespace meshplan
