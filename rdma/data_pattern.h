#pragma once
// The data-check pattern of the rdma family: a function of the message size, so both ends of
// a pair agree on it without exchanging it. check_pattern returns "" or what differs.
#include <cstdint>
#include <string>

namespace railgauge::rdma {

void fill_pattern(std::uint8_t *data, std::size_t bytes, std::uint64_t seed);
std::string check_pattern(const std::uint8_t *data, std::size_t bytes, std::uint64_t seed,
                          const std::string &what);

} // namespace railgauge::rdma
