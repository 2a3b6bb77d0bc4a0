#include <catch2/catch.hpp>
#include "model.h"
TEST_CASE("placeholder compile") { CHECK(minimind::shape_numel({2,3}) == 6); }
