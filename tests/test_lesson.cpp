// Lesson 2.5's worked examples, computed by the core: the numbers the lesson
// prints must come out (to the decimals it prints).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "lesson/lesson_attention.h"

using namespace minimind;

namespace {

Matrix rows(std::initializer_list<std::initializer_list<float>> values) {
  Matrix m(int64_t(values.size()), int64_t(values.begin()->size()));
  int64_t i = 0;
  for (const auto& row : values) {
    int64_t j = 0;
    for (float x : row) m(i, j++) = x;
    ++i;
  }
  return m;
}

std::string fixed(double x, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
  return buffer;
}

}  // namespace

TEST_CASE("lesson 2.5: 她 attends to 小红 with 0.493 (Q·Kᵀ then softmax, no scaling, no mask)", "[lesson]") {
  // Tokens 小红, 很, 她 with the lesson's 4-dimensional Q and K.
  const Matrix q = rows({{0.1f, 0.2f, 0.3f, 0.1f}, {0.0f, 0.1f, 0.0f, 0.2f}, {0.9f, 0.1f, 0.8f, 0.0f}});
  const Matrix k = rows({{0.8f, 0.2f, 0.9f, 0.1f}, {0.0f, 0.3f, 0.1f, 0.5f}, {0.7f, 0.1f, 0.7f, 0.0f}});
  const LessonAttention a = lesson_attention(q, k, Matrix(), /*causal=*/false, /*scale=*/false);
  // The lesson prints tensor([[0.4000, 0.1400, 0.3000], [0.0400, 0.1300, 0.0100], [1.4600, 0.1100, 1.2000]])
  const float scores[3][3] = {{0.40f, 0.14f, 0.30f}, {0.04f, 0.13f, 0.01f}, {1.46f, 0.11f, 1.20f}};
  const float weights[3][3] = {{0.3737f, 0.2881f, 0.3381f}, {0.3263f, 0.3570f, 0.3167f}, {0.4925f, 0.1277f, 0.3798f}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      CHECK(fixed(a.raw(i, j), 4) == fixed(scores[i][j], 4));
      CHECK(fixed(a.weights(i, j), 4) == fixed(weights[i][j], 4));
    }
  }
  CHECK(fixed(a.weights(2, 0), 3) == "0.493");  // 她→小红
  CHECK(fixed(a.weights(2, 1), 3) == "0.128");  // 她→很
  CHECK(fixed(a.weights(2, 2), 3) == "0.380");  // 她→她
}

TEST_CASE("lesson 2.5: softmax of [1, 2, 3] is spread, of [10, 20, 30] winner-takes-all", "[lesson]") {
  const LessonAttention small = lesson_softmax(rows({{1, 2, 3}}), false);
  CHECK(fixed(small.weights(0, 0), 2) == "0.09");
  CHECK(fixed(small.weights(0, 1), 2) == "0.24");
  CHECK(fixed(small.weights(0, 2), 2) == "0.67");
  const LessonAttention big = lesson_softmax(rows({{10, 20, 30}}), false);
  CHECK(fixed(big.weights(0, 0), 2) == "0.00");
  CHECK(fixed(big.weights(0, 1), 2) == "0.00");
  CHECK(fixed(big.weights(0, 2), 2) == "1.00");
}

TEST_CASE("lesson 2.5: the 4-token causal mask gives −∞ above the diagonal and exact zeros after softmax", "[lesson]") {
  // The lesson's scores for 今天 天气 很 好 before masking (the masked entries are arbitrary).
  const Matrix scores =
      rows({{0.8f, 0.1f, 0.1f, 0.1f}, {0.5f, 0.6f, 0.1f, 0.1f}, {0.3f, 0.7f, 0.4f, 0.1f}, {0.2f, 0.5f, 0.3f, 0.8f}});
  const LessonAttention a = lesson_softmax(scores, true);
  for (int i = 0; i < 4; ++i) {
    double sum = 0;
    for (int j = 0; j < 4; ++j) {
      if (j > i) {
        CHECK(std::isinf(a.masked(i, j)));
        CHECK(a.weights(i, j) == 0.0f);
      }
      sum += a.weights(i, j);
    }
    CHECK(sum == Approx(1.0).margin(1e-6));
  }
  CHECK(fixed(a.weights(0, 0), 2) == "1.00");
  CHECK(fixed(a.weights(1, 0), 2) == "0.48");  // softmax(0.5, 0.6); the lesson rounds it to 0.47 / 0.53
  CHECK(fixed(a.weights(1, 1), 2) == "0.52");
}

TEST_CASE("lesson attention: ÷√d, weights·V, and clear refusals", "[lesson]") {
  const Matrix q = rows({{1, 0}, {0, 1}});
  const Matrix k = rows({{2, 0}, {0, 2}});
  const Matrix v = rows({{1, 2, 3}, {4, 5, 6}});
  const LessonAttention a = lesson_attention(q, k, v, true, true);
  CHECK(a.scaled(0, 0) == Approx(2.0 / std::sqrt(2.0)));
  CHECK(a.output.rows() == 2);
  CHECK(a.output.cols() == 3);
  CHECK(a.output(0, 2) == Approx(3.0f));  // row 0 sees only key 0
  CHECK(a.output(1, 0) == Approx(a.weights(1, 0) * 1 + a.weights(1, 1) * 4));
  REQUIRE_THROWS_WITH(lesson_attention(q, rows({{1, 2, 3}}), Matrix(), false, true), Catch::Contains("same length"));
  REQUIRE_THROWS_WITH(lesson_attention(q, k, rows({{1}}), false, true), Catch::Contains("every key needs its value"));
  REQUIRE_THROWS_WITH(lesson_attention(rows({{NAN, 0}}), k, Matrix(), false, true),
                      Catch::Contains("Q[0][0] is not a finite number"));
  REQUIRE_THROWS_WITH(lesson_softmax(Matrix(100, 2), false), Catch::Contains("at most 64"));
}
