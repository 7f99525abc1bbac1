// The one translation unit that compiles toml++'s implementation (see README.md).
#define TOML_IMPLEMENTATION
#include "toml++/toml.hpp"
