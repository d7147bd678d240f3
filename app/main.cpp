#include "app/cli.hpp"

int main(int argc, char** argv) {
  return meshplan::run_cli(argc, argv);
}
