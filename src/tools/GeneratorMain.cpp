// main() of every generator executable (the Loom::generator_main library):
// the generator driver over the generators registered in the program.

#include "loom/Generator.h"

int main(int argc, char **argv) { return loom::internal::generate_filter_main(argc, argv); }
