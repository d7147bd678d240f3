#pragma once

namespace meshplan {

// Builds the command line, runs the chosen command, maps every error to the documented exit code.
int run_cli(int argc, char** argv);

}  // namespace meshplan
