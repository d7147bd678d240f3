// Quantities with units as people write them in cluster files: "512GB", "192GiB", "80Gbps".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

// Bytes from "512GB" (decimal), "192GiB" (binary), "1.5TB", "4096" (bytes) or "64 MiB".
// Returns nullopt when the text is not a size.
std::optional<double> parse_bytes(std::string_view text);

// Gigabits per second from "80Gbps", "80 Gb/s", "Up to 120 Gb/s", "10Gbit/s", "800Mbps" or "40".
std::optional<double> parse_gbps(std::string_view text);

// Seconds from "50us", "0.3ms", "4 ms", "1s" (bare numbers are rejected: the unit matters).
std::optional<double> parse_duration(std::string_view text);

// Tokens from "32768", "32k" or "128K" (k = 1024, as context lengths are quoted), "1M" (2^20).
// Returns nullopt when the text is not a whole, positive count.
std::optional<int64_t> parse_token_count(std::string_view text);

// "405.9 GB" style, decimal units, for tables.
std::string format_bytes(double bytes);
// "378.0 GiB" style, binary units.
std::string format_gib(double bytes);
// A share as "12.3 %".
std::string format_percent(double share);
// A rate with a decimal prefix and three significant digits: format_rate(3.01e12, "B/s") is
// "3.01 TB/s", format_rate(4.06e9, "FLOP/s") "4.06 GFLOP/s".
std::string format_rate(double value, std::string_view unit);
// A time as a report shows it: "46.90 ms", "1.23 s", "50 us".
std::string format_duration(double seconds);

// Sorted integers as runs: {0,1,2,3,7,9,10} -> "0-3, 7, 9-10".
std::string format_ranges(const std::vector<int>& sorted);

std::string trim(std::string_view s);
std::string to_lower(std::string_view s);

}  // namespace meshplan
