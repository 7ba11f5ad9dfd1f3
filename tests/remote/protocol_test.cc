// The remote protocol's messages: every message survives encode -> decode; truncation at any
// byte, trailing bytes, wrong magic or version, unknown types, and every cap are refused with a
// message naming the message and field.
#include "runtime/remote/protocol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/remote/socket.h"
#include "runtime/remote/wire.h"

namespace loom::runtime::remote {
namespace {

using ::testing::HasSubstr;

HostTensor Tensor(const std::string& name, DType type, std::vector<int64_t> shape, size_t bytes) {
  HostTensor t;
  t.name = name;
  t.type = type;
  t.shape = std::move(shape);
  for (size_t i = 0; i < bytes; ++i) t.data.push_back(static_cast<uint8_t>(i * 7 + 1));
  return t;
}

RunResult SampleResult() {
  RunResult r;
  r.outputs.push_back(Tensor("probs", DType::kF32, {1, 3}, 12));
  r.outputs.push_back(Tensor("features", DType::kI8, {1, 2, 2, 2}, 8));
  r.profile.inferences = 2;
  SegmentProfile s;
  s.name = "accel0";
  s.accel = true;
  s.on_device = true;
  s.runs = 2;
  s.cycles = 1234;
  s.macs = 99;
  s.busy = {1, 2, 3};
  r.profile.segments.push_back(s);
  r.profile.segments.push_back(SegmentProfile{});
  InsnTiming t;
  t.module = isa::Module::kCompute;
  t.begin = 5;
  t.end = 9;
  t.stall_pop[1] = 3;
  t.stall_finish = 1;
  r.timelines = {{t, InsnTiming{}}, {}};
  return r;
}

TEST(RemoteProtocol, MessagesRoundTrip) {
  Hello h;
  ASSERT_TRUE(DecodeHello(EncodeHello(Hello{}).data(), EncodeHello(Hello{}).size(), &h).ok());
  EXPECT_EQ(h.version, kProtocolVersion);

  HelloOk ok{kProtocolVersion, "fsim", "cpu fsim tsim null"};
  std::vector<uint8_t> b = EncodeHelloOk(ok);
  HelloOk ok2;
  ASSERT_TRUE(DecodeHelloOk(b.data(), b.size(), &ok2).ok());
  EXPECT_EQ(ok2.device, "fsim");
  EXPECT_EQ(ok2.devices, "cpu fsim tsim null");

  OpenRequest o;
  o.package_hash = 0x0123456789abcdefull;
  o.package_bytes = 4096;
  o.device = "tsim:coherent";
  o.timeline = true;
  o.timeout_ms = 7;
  o.wall_timeout_ms = 8;
  o.max_device_memory = 1ull << 33;
  b = EncodeOpen(o);
  OpenRequest o2;
  ASSERT_TRUE(DecodeOpen(b.data(), b.size(), &o2).ok());
  EXPECT_EQ(o2.package_hash, o.package_hash);
  EXPECT_EQ(o2.device, o.device);
  EXPECT_FALSE(o2.trace);
  EXPECT_TRUE(o2.timeline);
  EXPECT_EQ(o2.max_device_memory, o.max_device_memory);

  RunRequest run;
  run.int8_outputs = true;
  run.inputs.push_back(Tensor("input", DType::kF32, {1, 5, 8, 8}, 20));
  b = EncodeRun(run);
  RunRequest run2;
  ASSERT_TRUE(DecodeRun(b.data(), b.size(), &run2).ok());
  EXPECT_TRUE(run2.int8_outputs);
  ASSERT_EQ(run2.inputs.size(), 1u);
  EXPECT_EQ(run2.inputs[0].shape, (std::vector<int64_t>{1, 5, 8, 8}));
  EXPECT_EQ(run2.inputs[0].data, run.inputs[0].data);

  const RunResult r = SampleResult();
  b = EncodeResult(r);
  RunResult r2;
  ASSERT_TRUE(DecodeResult(b.data(), b.size(), &r2).ok());
  ASSERT_EQ(r2.outputs.size(), 2u);
  EXPECT_EQ(r2.outputs[1].type, DType::kI8);
  EXPECT_EQ(r2.outputs[1].data, r.outputs[1].data);
  EXPECT_EQ(r2.profile.inferences, 2u);
  EXPECT_EQ(r2.profile.segments[0].cycles, 1234u);
  EXPECT_EQ(r2.profile.segments[0].busy[2], 3u);
  EXPECT_TRUE(r2.profile.segments[0].on_device);
  ASSERT_EQ(r2.timelines[0].size(), 2u);
  EXPECT_EQ(r2.timelines[0][0].module, isa::Module::kCompute);
  EXPECT_EQ(r2.timelines[0][0].stall_pop[1], 3u);
  EXPECT_EQ(EncodeResult(r2), b);  // canonical

  ErrorReply e{StatusCode::kNotFound, "no input named x"};
  b = EncodeError(e);
  ErrorReply e2;
  ASSERT_TRUE(DecodeError(b.data(), b.size(), &e2).ok());
  EXPECT_EQ(e2.code, StatusCode::kNotFound);
  EXPECT_EQ(e2.message, e.message);
}

TEST(RemoteProtocol, EveryTruncationAndTrailingByteIsRefused) {
  const std::vector<uint8_t> full = EncodeResult(SampleResult());
  RunResult r;
  for (size_t n = 0; n < full.size(); ++n) {
    const Status s = DecodeResult(full.data(), n, &r);
    ASSERT_FALSE(s.ok()) << n;
    EXPECT_THAT(s.message(), HasSubstr("RESULT message")) << n;
  }
  std::vector<uint8_t> longer = full;
  longer.push_back(0);
  const Status s = DecodeResult(longer.data(), longer.size(), &r);
  EXPECT_THAT(s.message(), HasSubstr("1 bytes after its last field"));
}

TEST(RemoteProtocol, WrongMagicAndVersionAreNamed) {
  std::vector<uint8_t> b = EncodeHello(Hello{});
  b[0] = 'X';
  Hello h;
  Status s = DecodeHello(b.data(), b.size(), &h);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("wrong magic"));
  b = EncodeHello(Hello{7});
  s = DecodeHello(b.data(), b.size(), &h);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("client speaks Loom remote protocol version 7, this server "
                                     "speaks version 1"));
  b = EncodeHelloOk(HelloOk{9, "cpu", "cpu"});
  HelloOk ok;
  s = DecodeHelloOk(b.data(), b.size(), &ok);
  EXPECT_THAT(s.message(), HasSubstr("server speaks Loom remote protocol version 9"));
}

TEST(RemoteProtocol, FrameHeaderChecksTypeAndCap) {
  FrameHeader h;
  const uint8_t unknown[5] = {0, 0, 0, 0, 99};
  EXPECT_THAT(DecodeFrameHeader(unknown, &h).message(), HasSubstr("unknown message type 99"));
  const uint8_t http[5] = {'G', 'E', 'T', ' ', '/'};
  EXPECT_FALSE(DecodeFrameHeader(http, &h).ok());
  const uint8_t big_hello[5] = {0, 0, 2, 0, 1};  // 128 KiB HELLO
  EXPECT_THAT(DecodeFrameHeader(big_hello, &h).message(),
              HasSubstr("HELLO message of 131072 bytes is over its limit of 65536"));
  const uint8_t big_package[5] = {0xff, 0xff, 0xff, 0xff, 7};
  EXPECT_THAT(DecodeFrameHeader(big_package, &h).message(), HasSubstr("PACKAGE message"));
  const std::vector<uint8_t> f = Frame(MessageType::kBye, {});
  ASSERT_TRUE(DecodeFrameHeader(f.data(), &h).ok());
  EXPECT_EQ(h.type, MessageType::kBye);
  EXPECT_EQ(h.body_bytes, 0u);
}

TEST(RemoteProtocol, CountRankAndDtypeCaps) {
  WireWriter w;
  w.U8(0);
  w.U32(kMaxTensors + 1);
  RunRequest r;
  Status s = DecodeRun(w.bytes().data(), w.bytes().size(), &r);
  EXPECT_THAT(s.message(), HasSubstr("tensor count' is 257, more than the limit of 256"));

  RunRequest one;
  one.inputs.push_back(Tensor("x", DType::kF32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, 4));
  std::vector<uint8_t> b = EncodeRun(one);
  s = DecodeRun(b.data(), b.size(), &r);
  EXPECT_THAT(s.message(), HasSubstr("rank' is 9, more than the limit of 8"));

  one.inputs[0].shape = {-1};
  b = EncodeRun(one);
  EXPECT_THAT(DecodeRun(b.data(), b.size(), &r).message(), HasSubstr("is negative (-1)"));

  one.inputs[0].shape = {1};
  b = EncodeRun(one);
  b[1 + 4 + 4 + 1] = 9;  // the dtype byte after flags, count, name length and name
  EXPECT_THAT(DecodeRun(b.data(), b.size(), &r).message(), HasSubstr("dtype' is 9"));

  OpenRequest o;
  o.package_bytes = kMaxPackageBytes + 1;
  b = EncodeOpen(o);
  OpenRequest o2;
  EXPECT_THAT(DecodeOpen(b.data(), b.size(), &o2).message(), HasSubstr("package bytes"));
}

TEST(RemoteProtocol, ParsesAddresses) {
  std::string host;
  uint16_t port = 0;
  ASSERT_TRUE(ParseHostPort("127.0.0.1:9091", &host, &port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9091);
  ASSERT_TRUE(ParseHostPort("[::1]:0", &host, &port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 0);
  EXPECT_THAT(ParseHostPort("board", &host, &port).message(), HasSubstr("expected HOST:PORT"));
  EXPECT_THAT(ParseHostPort("board:99999", &host, &port).message(), HasSubstr("0..65535"));
  EXPECT_THAT(ParseHostPort(":80", &host, &port).message(), HasSubstr("names no host"));
  EXPECT_THAT(ParseHostPort("::1:80", &host, &port).message(), HasSubstr("brackets"));
}

}  // namespace
}  // namespace loom::runtime::remote
