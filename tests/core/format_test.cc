// The error-message formatter and the one-pointer Status: text identical to the std::to_string
// concatenations they replaced, codes kept, ok statuses carry nothing.
#include "runtime/core/format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "runtime/core/status.h"

namespace loom {
namespace {

TEST(Format, IntegersPrintAsToString) {
  EXPECT_EQ(Format("{} {} {}", 0, -7, 42u), "0 -7 42");
  EXPECT_EQ(Format("{}", std::numeric_limits<int64_t>::min()),
            std::to_string(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(Format("{}", std::numeric_limits<uint64_t>::max()),
            std::to_string(std::numeric_limits<uint64_t>::max()));
  EXPECT_EQ(Format("{}", int8_t{-128}), "-128");  // a number, not a character
  EXPECT_EQ(Format("{}", uint8_t{200}), "200");
  EXPECT_EQ(Format("{}", size_t{123456789}), "123456789");
}

TEST(Format, DoublesPrintAsToString) {
  for (double d : {0.0, -1.5, 2000.0, 1e-9, 3.14159265}) {
    EXPECT_EQ(Format("{}", d), std::to_string(d)) << d;
  }
  EXPECT_EQ(Format("{}", 1e300), std::to_string(1e300));  // longer than the stack buffer
}

TEST(Format, StringsKeepTheirBytes) {
  const std::string with_nul("a\0b", 3);
  EXPECT_EQ(Format("[{}]", with_nul), std::string("[a\0b]", 5));
  EXPECT_EQ(Format("[{}]", std::string_view("xyz", 2)), "[xy]");
  const char* none = nullptr;
  EXPECT_EQ(Format("{}", none), "(null)");
  EXPECT_EQ(Format("'{}' and '{}'", "one", std::string("two")), "'one' and 'two'");
}

TEST(Format, PlaceholdersAndArgumentsThatDoNotPair) {
  EXPECT_EQ(Format("no holes"), "no holes");
  EXPECT_EQ(Format("{} and {}", 1), "1 and {}");  // a hole with no argument stays
  EXPECT_EQ(Format("only {}", 1, 2), "only 1");   // an argument with no hole is dropped
  EXPECT_EQ(Format("{x} {}", 5), "{x} 5");        // only "{}" is a hole
  std::string out = "pre";
  FormatTo(&out, " {}={}", "k", 3);
  EXPECT_EQ(out, "pre k=3");
}

TEST(Status, FormattedErrorsKeepCodeAndText) {
  const Status s = InvalidArgument("{}: rank {} is above {}", "tensor 3 'x'", 9u, 8);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "tensor 3 'x': rank 9 is above 8");
  EXPECT_EQ(s.ToString(), "invalid-argument: tensor 3 'x': rank 9 is above 8");
  EXPECT_EQ(OutOfRange("{}", 1).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(NotFound("{}", 1).code(), StatusCode::kNotFound);
  EXPECT_EQ(FailedPrecondition("{}", 1).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(DataLoss("{}", 1).code(), StatusCode::kDataLoss);
  EXPECT_EQ(Unimplemented("{}", 1).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(Internal("{}", 1).code(), StatusCode::kInternal);
  // One argument is a plain message: braces in it are not holes.
  EXPECT_EQ(InvalidArgument("literal {}").message(), "literal {}");
}

TEST(Status, OkCarriesNothing) {
  const Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), StatusCode::kOk);
  EXPECT_EQ(ok.message(), "");
  EXPECT_EQ(ok.ToString(), "ok");
  EXPECT_TRUE(Status(StatusCode::kOk, "dropped").ok());
  EXPECT_EQ(Status(StatusCode::kOk, "dropped").message(), "");
  EXPECT_TRUE(ok.WithContext("ctx").ok());
  EXPECT_TRUE(ok.WithContext("segment {}", 2).ok());
}

TEST(Status, CopyMoveAndContext) {
  Status a = DataLoss("{} bytes", 3);
  Status b = a;  // a deep copy: both stay valid
  EXPECT_EQ(b.message(), "3 bytes");
  EXPECT_EQ(a.message(), "3 bytes");
  Status c = std::move(a);
  EXPECT_EQ(c.code(), StatusCode::kDataLoss);
  b = Status();
  EXPECT_TRUE(b.ok());
  b = c;
  EXPECT_EQ(b.message(), "3 bytes");
  b = b;  // self-assignment keeps the message
  EXPECT_EQ(b.message(), "3 bytes");
  EXPECT_EQ(c.WithContext("file.loom").message(), "file.loom: 3 bytes");
  EXPECT_EQ(c.WithContext("segment {} '{}'", 1, "conv").message(), "segment 1 'conv': 3 bytes");
  EXPECT_EQ(c.WithContext("segment {} '{}'", 1, "conv").code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace loom
