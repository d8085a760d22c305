#pragma once
// `railgauge import nccl-tests FILE` and `railgauge import perftest FILE`: the collectives and
// rdma families' importers (collectives/nccl_tests_import.h, rdma/perftest_import.h) as
// commands that write run directories. Exit status 0, or 2 for input that is not the tool's
// output (the message gives file:line), as every command's bad input.
namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_import_nccl_tests_command(CLI::App &app, int &exit_code);
void add_import_perftest_command(CLI::App &app, int &exit_code);

} // namespace railgauge::analysis
