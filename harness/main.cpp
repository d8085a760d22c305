#include "harness/cli.h"

int main(int argc, char **argv) { return railgauge::run_cli(argc, argv); }
