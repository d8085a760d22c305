#pragma once
// `railgauge import nccl-tests|perftest|nvbandwidth FILE [--out DIR] [--host NAME]`: another
// tool's saved output (nccl_tests_import.h, perftest_import.h, nvbandwidth_import.h) as a run
// directory <out>/<run-id>/ that every analysis command reads like a measured run. Exit status
// (harness/exit_status.h): 0, 1 when part of the input could not be read (what could is
// written), 4 for input that is not the tool's output (the message gives file:line).
namespace CLI {
class App;
}

namespace railgauge::analysis {

void add_import_nccl_tests_command(CLI::App &app, int &exit_code);
void add_import_perftest_command(CLI::App &app, int &exit_code);
void add_import_nvbandwidth_command(CLI::App &app, int &exit_code);

} // namespace railgauge::analysis
