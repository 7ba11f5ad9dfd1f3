// The remote device end to end on loopback: a Server on an ephemeral port with fsim and tsim
// behind it, clients through OpenSession("remote://..."). Outputs are byte-identical to the same
// package run locally, counters and timelines come back, packages are cached, and hostile or
// vanishing clients leave the server serving the next one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "runtime/api/host_runtime.h"
#include "runtime/api/session.h"
#include "runtime/config/config_file.h"
#include "runtime/package/format.h"
#include "runtime/remote/client.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/server.h"
#include "runtime/remote/socket.h"
#include "tests/runtime/test_packages.h"

namespace loom::testing {
namespace {

using runtime::Executor;
using runtime::HostTensor;
using runtime::remote::Fd;
using runtime::remote::MessageType;
using ::testing::HasSubstr;
namespace remote = runtime::remote;

// features_only keeps the int8 output "features" alone, so int8 outputs can be asked for.
std::vector<uint8_t> PackageBytes(const ConvModelOptions& m, bool features_only = false) {
  HwConfig c;
  EXPECT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  package::PackageSpec spec;
  EXPECT_TRUE(BuildConvModel(c, m, &spec).ok());
  if (features_only) spec.outputs.resize(1);
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(package::SerializePackage(spec, &bytes).ok());
  return bytes;
}

std::unique_ptr<runtime::Package> Load(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<runtime::Package> p;
  const Status s = runtime::Package::LoadMemory(bytes.data(), bytes.size(), &p);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return p;
}

HostTensor Input(const ConvModelOptions& m, uint32_t seed) {
  const std::vector<float> x = ConvModelInput(m, seed);
  HostTensor t;
  t.name = "input";
  t.shape = {m.n, m.c, m.hw, m.hw};
  t.data.resize(x.size() * 4);
  std::memcpy(t.data.data(), x.data(), t.data.size());
  return t;
}

bool HaveDevice(const std::string& name) {
  return (" " + runtime::DriverNames() + " ").find(" " + name + " ") != std::string::npos;
}

class RemoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(runtime::RegisterHostRuntime().ok());
    Start(8);
  }
  void TearDown() override { Stop(); }

  void Start(size_t max_queue) {
    remote::ServeOptions o;
    o.host = "127.0.0.1";
    o.port = 0;
    o.device = "fsim";
    o.read_timeout_ms = 5000;
    o.max_queue = max_queue;
    const Status s = remote::Server::Create(o, &server_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    thread_ = std::thread([this] { served_ = server_->Serve(); });
  }
  void Stop() {
    if (!server_) return;
    server_->Stop();
    thread_.join();
    EXPECT_TRUE(served_.ok()) << served_.ToString();
    server_.reset();
  }

  std::string Device(const std::string& d = "") const {
    return "remote://127.0.0.1:" + std::to_string(server_->port()) + (d.empty() ? "" : "/" + d);
  }

  Status OpenRemote(const std::vector<uint8_t>& pkg, const std::string& device,
                    std::unique_ptr<Executor>* out, bool timeline = false) {
    runtime::SessionOptions so;
    so.device = device;
    so.timeline = timeline;
    so.trace = timeline;
    return runtime::OpenSession(Load(pkg), so, out);
  }

  // A raw connection that has said HELLO and read HELLO_OK.
  Fd RawHello() {
    Fd fd;
    EXPECT_TRUE(remote::Connect("127.0.0.1", server_->port(), 5000, &fd).ok());
    EXPECT_TRUE(remote::WriteFrame(fd.get(), MessageType::kHello,
                                   remote::EncodeHello(remote::Hello{}), 5000)
                    .ok());
    remote::FrameHeader h;
    std::vector<uint8_t> body;
    do {  // QUEUED while the previous client's BYE is being handled
      EXPECT_TRUE(remote::ReadFrame(fd.get(), {5000, -1}, 5000, &h, &body).ok());
    } while (h.type == MessageType::kQueued);
    EXPECT_EQ(h.type, MessageType::kHelloOk);
    return fd;
  }

  // Sends `bytes` and returns the server's ERROR message (or what went wrong reading it).
  std::string SendGarbage(const std::vector<uint8_t>& bytes) {
    Fd fd;
    EXPECT_TRUE(remote::Connect("127.0.0.1", server_->port(), 5000, &fd).ok());
    EXPECT_TRUE(remote::WriteFull(fd.get(), bytes.data(), bytes.size(), 5000).ok());
    remote::FrameHeader h;
    std::vector<uint8_t> body;
    Status s;
    do {  // QUEUED while the previous client's BYE is being handled
      s = remote::ReadFrame(fd.get(), {10000, -1}, 5000, &h, &body);
    } while (s.ok() && h.type == MessageType::kQueued);
    if (!s.ok()) return "no reply: " + s.message();
    if (h.type != MessageType::kError) return std::string("got ") + remote::MessageName(h.type);
    remote::ErrorReply e;
    EXPECT_TRUE(remote::DecodeError(body.data(), body.size(), &e).ok());
    return e.message;
  }

  // A good client: the package runs and matches a local fsim run.
  void ExpectServes() {
    ConvModelOptions m;
    const std::vector<uint8_t> pkg = PackageBytes(m);
    std::unique_ptr<Executor> e;
    const Status s = OpenRemote(pkg, Device(), &e);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::vector<HostTensor> out;
    ASSERT_TRUE(e->Run({Input(m, 3)}, {}, &out).ok());
    EXPECT_EQ(out.size(), 2u);
  }

  std::unique_ptr<remote::Server> server_;
  std::thread thread_;
  Status served_;
};

void ExpectSameOutputs(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].type, b[i].type);
    EXPECT_EQ(a[i].shape, b[i].shape);
    EXPECT_TRUE(a[i].data == b[i].data) << "output " << a[i].name << " differs";
  }
}

TEST_F(RemoteTest, FsimAndTsimAreByteIdenticalToLocal) {
  std::vector<std::string> devices = {"cpu", "fsim"};
  if (HaveDevice("tsim")) devices.push_back("tsim");
  ConvModelOptions m;
  m.n = 2;  // a stacked batch: two runs of the model in one RUN
  m.float_tail = true;
  for (const std::string& d : devices) {
    SCOPED_TRACE(d);
    for (bool int8 : {false, true}) {
      const std::vector<uint8_t> pkg = PackageBytes(m, int8);
      runtime::SessionOptions so;
      so.device = d;
      std::unique_ptr<Executor> local, far;
      ASSERT_TRUE(runtime::OpenSession(Load(pkg), so, &local).ok());
      const Status s = OpenRemote(pkg, Device(d), &far);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(std::string(far->driver().name()), Device(d));
      runtime::RunOptions ro;
      ro.int8_outputs = int8;
      std::vector<HostTensor> want, got;
      ASSERT_TRUE(local->Run({Input(m, 5)}, ro, &want).ok());
      const Status r = far->Run({Input(m, 5)}, ro, &got);
      ASSERT_TRUE(r.ok()) << r.ToString();
      ExpectSameOutputs(want, got);
      // Counters come back, and equal the local ones (the simulators are deterministic).
      const runtime::SegmentProfile lt = local->profile().Total(), ft = far->profile().Total();
      EXPECT_EQ(far->profile().inferences, local->profile().inferences);
      EXPECT_EQ(ft.cycles, lt.cycles);
      EXPECT_EQ(ft.macs, lt.macs);
      EXPECT_EQ(ft.bytes_loaded, lt.bytes_loaded);
      EXPECT_EQ(ft.insns, lt.insns);
      if (d != "cpu") {
        EXPECT_GT(ft.cycles, 0u);
      }
      for (size_t i = 0; i < local->profile().segments.size(); ++i) {
        EXPECT_EQ(far->profile().segments[i].on_device, local->profile().segments[i].on_device);
      }
      // A second run adds to the totals, as a local session does.
      ASSERT_TRUE(far->Run({Input(m, 6)}, ro, &got).ok());
      EXPECT_EQ(far->profile().Total().cycles, 2 * lt.cycles);
    }
  }
}

TEST_F(RemoteTest, PackageIsUploadedOnceThenCached) {
  ConvModelOptions m;
  const std::vector<uint8_t> pkg = PackageBytes(m);
  for (int i = 0; i < 3; ++i) {
    std::unique_ptr<Executor> e;
    ASSERT_TRUE(OpenRemote(pkg, Device(), &e).ok());
  }
  EXPECT_EQ(server_->stats().uploads, 1u);
  EXPECT_EQ(server_->stats().cache_hits, 2u);
  // Another package is another upload.
  m.seed = 2;
  std::unique_ptr<Executor> e;
  ASSERT_TRUE(OpenRemote(PackageBytes(m), Device(), &e).ok());
  EXPECT_EQ(server_->stats().uploads, 2u);
}

TEST_F(RemoteTest, TimelineAndTraceComeBack) {
  ConvModelOptions m;
  const std::vector<uint8_t> pkg = PackageBytes(m);
  runtime::SessionOptions so;
  so.device = "fsim";
  so.timeline = true;
  so.trace = true;
  std::unique_ptr<Executor> local, far;
  ASSERT_TRUE(runtime::OpenSession(Load(pkg), so, &local).ok());
  ASSERT_TRUE(OpenRemote(pkg, Device("fsim"), &far, true).ok());
  std::vector<HostTensor> a, b;
  ASSERT_TRUE(local->Run({Input(m, 1)}, {}, &a).ok());
  ASSERT_TRUE(far->Run({Input(m, 1)}, {}, &b).ok());
  size_t timed = 0;
  for (size_t s = 0; s < local->package().num_segments(); ++s) {
    ASSERT_EQ(far->timeline(s).size(), local->timeline(s).size());
    for (size_t i = 0; i < local->timeline(s).size(); ++i) {
      EXPECT_EQ(far->timeline(s)[i].begin, local->timeline(s)[i].begin);
      EXPECT_EQ(far->timeline(s)[i].end, local->timeline(s)[i].end);
    }
    timed += local->timeline(s).size();
  }
  EXPECT_GT(timed, 0u);
  std::string lj, fj;
  ASSERT_TRUE(local->TraceJson(&lj).ok());
  const Status s = far->TraceJson(&fj);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(fj, lj);
}

TEST_F(RemoteTest, ErrorsComeBackAndTheSessionGoesOn) {
  ConvModelOptions m;
  const std::vector<uint8_t> pkg = PackageBytes(m);
  std::unique_ptr<Executor> e;
  ASSERT_TRUE(OpenRemote(pkg, Device(), &e).ok());
  HostTensor bad = Input(m, 1);
  bad.name = "nosuch";
  std::vector<HostTensor> out;
  Status s = e->Run({bad}, {}, &out);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no input named 'nosuch'"));
  EXPECT_THAT(s.message(), HasSubstr(Device()));
  ASSERT_TRUE(e->Run({Input(m, 1)}, {}, &out).ok());
  e.reset();  // one client at a time: the next would wait behind this one

  s = OpenRemote(pkg, Device("nosuch"), &e);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("unknown device 'nosuch'"));
  s = OpenRemote(pkg, "remote://127.0.0.1", &e);
  EXPECT_THAT(s.message(), HasSubstr("expected remote://HOST:PORT[/DEVICE]"));
  runtime::SessionOptions so;
  so.device = Device();
  so.config = "1x16x16";
  EXPECT_THAT(runtime::OpenSession(Load(pkg), so, &e).message(), HasSubstr("package's own config"));
}

TEST_F(RemoteTest, GarbageClientsAreRefusedAndTheServerStaysUp) {
  std::vector<uint8_t> random(300);
  uint32_t x = 12345;
  for (uint8_t& b : random) {
    x = x * 1103515245 + 12345;
    b = static_cast<uint8_t>(x >> 16);
  }
  random[4] = 200;  // an unknown type, whatever the rest says
  EXPECT_THAT(SendGarbage(random), HasSubstr("unknown message type 200"));
  ExpectServes();

  const std::string http = "GET / HTTP/1.1\r\nHost: board\r\n\r\n";
  EXPECT_THAT(SendGarbage(std::vector<uint8_t>(http.begin(), http.end())),
              HasSubstr("unknown message type"));
  ExpectServes();

  std::vector<uint8_t> hello = remote::EncodeHello(remote::Hello{});
  hello[3] = 'X';
  EXPECT_THAT(SendGarbage(remote::Frame(MessageType::kHello, hello)), HasSubstr("wrong magic"));
  EXPECT_THAT(
      SendGarbage(remote::Frame(MessageType::kHello, remote::EncodeHello(remote::Hello{2}))),
      HasSubstr("client speaks Loom remote protocol version 2, this server speaks version 1"));
  const uint8_t oversized[5] = {0, 0, 0, 0x40, static_cast<uint8_t>(MessageType::kRun)};
  EXPECT_THAT(SendGarbage(std::vector<uint8_t>(oversized, oversized + 5)),
              HasSubstr("over its limit"));
  EXPECT_THAT(SendGarbage(remote::Frame(MessageType::kRun, {})),
              HasSubstr("expected HELLO as the first message, got RUN"));
  ExpectServes();
  EXPECT_GE(server_->stats().refused, 6u);
}

TEST_F(RemoteTest, ClientThatVanishesMidUploadOrMidRun) {
  ConvModelOptions m;
  const std::vector<uint8_t> pkg = PackageBytes(m);
  remote::FrameHeader h;
  std::vector<uint8_t> body;
  {  // mid-upload: half a package, then gone
    Fd fd = RawHello();
    remote::OpenRequest o;
    o.package_hash = 42;
    o.package_bytes = pkg.size();
    ASSERT_TRUE(remote::WriteFrame(fd.get(), MessageType::kOpen, remote::EncodeOpen(o), 5000).ok());
    ASSERT_TRUE(remote::ReadFrame(fd.get(), {5000, -1}, 5000, &h, &body).ok());
    ASSERT_EQ(h.type, MessageType::kNeedPackage);
    std::vector<uint8_t> half = remote::Frame(MessageType::kPackage, pkg);
    half.resize(half.size() / 2);
    ASSERT_TRUE(remote::WriteFull(fd.get(), half.data(), half.size(), 5000).ok());
  }
  ExpectServes();
  {  // mid-run: the RUN is sent, the client closes before the result
    std::unique_ptr<runtime::Package> p = Load(pkg);
    Fd fd = RawHello();
    remote::OpenRequest o;
    o.package_hash = runtime::Fnv1a64(p->payload(), p->payload_bytes());
    o.package_bytes = pkg.size();
    o.timeout_ms = 600000;
    o.wall_timeout_ms = 300000;
    o.max_device_memory = runtime::kDefaultMaxDeviceMemory;
    ASSERT_TRUE(remote::WriteFrame(fd.get(), MessageType::kOpen, remote::EncodeOpen(o), 5000).ok());
    ASSERT_TRUE(remote::ReadFrame(fd.get(), {5000, -1}, 5000, &h, &body).ok());
    if (h.type == MessageType::kNeedPackage) {
      ASSERT_TRUE(remote::WriteFrame(fd.get(), MessageType::kPackage, pkg, 5000).ok());
      ASSERT_TRUE(remote::ReadFrame(fd.get(), {5000, -1}, 5000, &h, &body).ok());
    }
    ASSERT_EQ(h.type, MessageType::kOpened);
    remote::RunRequest run;
    m.n = 8;  // eight stacked runs: the server is still running when the client is gone
    run.inputs.push_back(Input(m, 2));
    ASSERT_TRUE(remote::WriteFrame(fd.get(), MessageType::kRun, remote::EncodeRun(run), 5000).ok());
  }
  ExpectServes();
  // Both vanished clients were served as far as they went; the mid-run one's run completed.
  EXPECT_GE(server_->stats().runs, 3u);
}

TEST_F(RemoteTest, SecondClientIsQueuedThenServed) {
  ConvModelOptions m;
  const std::vector<uint8_t> pkg = PackageBytes(m);
  std::unique_ptr<Executor> first;
  ASSERT_TRUE(OpenRemote(pkg, Device(), &first).ok());
  std::atomic<uint32_t> ahead{0};
  std::atomic<bool> done{false};
  Status second_status;
  std::vector<HostTensor> second_out;
  std::thread second([&] {
    remote::RemoteOptions ro;
    ro.address = Device().substr(9);
    ro.on_queued = [&](uint32_t n) { ahead = n; };
    std::unique_ptr<Executor> e;
    second_status = remote::OpenRemote(Load(pkg), ro, &e);
    if (second_status.ok()) second_status = e->Run({Input(m, 4)}, {}, &second_out);
    done = true;
  });
  // The second client is told where it stands while the first is still connected.
  while (ahead == 0) std::this_thread::yield();
  EXPECT_EQ(ahead, 1u);
  EXPECT_FALSE(done);
  std::vector<HostTensor> out;
  ASSERT_TRUE(first->Run({Input(m, 4)}, {}, &out).ok());
  first.reset();  // BYE: the second client's turn
  second.join();
  ASSERT_TRUE(second_status.ok()) << second_status.ToString();
  ExpectSameOutputs(out, second_out);
}

TEST_F(RemoteTest, FullQueueSaysBusy) {
  Stop();
  Start(0);
  ConvModelOptions m;
  const std::vector<uint8_t> pkg = PackageBytes(m);
  std::unique_ptr<Executor> first, second;
  ASSERT_TRUE(OpenRemote(pkg, Device(), &first).ok());
  const Status s = OpenRemote(pkg, Device(), &second);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("server busy: 1 clients ahead"));
  EXPECT_EQ(server_->stats().busy, 1u);
}

TEST_F(RemoteTest, StopEndsAnIdleConnection) {
  ConvModelOptions m;
  std::unique_ptr<Executor> e;
  const std::string device = Device();
  ASSERT_TRUE(OpenRemote(PackageBytes(m), device, &e).ok());
  Stop();  // returns although the client is connected and idle
  std::vector<HostTensor> out;
  const Status s = e->Run({Input(m, 1)}, {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(device));
  EXPECT_THAT(e->Run({Input(m, 1)}, {}, &out).message(), HasSubstr(device));
}

}  // namespace
}  // namespace loom::testing
