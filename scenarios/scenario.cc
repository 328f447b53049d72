#include "scenario.h"

#include "load-file.h"

#include "ns3/flow-size-cdf.h"
#include "ns3/model-profile.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace flumen
{

using nlohmann::json;

namespace
{

KeySpec
Key(std::string path, KeyType type, json def, std::string help, double min = -1e300,
    double max = 1e300)
{
    KeySpec k;
    k.path = std::move(path);
    k.type = type;
    k.defaultValue = std::move(def);
    k.help = std::move(help);
    k.min = min;
    k.max = max;
    return k;
}

KeySpec
Choice(std::string path, std::string def, std::vector<std::string> choices, std::string help)
{
    KeySpec k = Key(std::move(path), KeyType::String, def, std::move(help));
    k.choices = std::move(choices);
    return k;
}

void
AddQueueKeys(std::vector<KeySpec>& keys, const std::string& prefix, const std::string& where,
             uint64_t buffer, const std::string& discipline)
{
    keys.push_back(Choice(prefix + ".discipline", discipline, { "fifo", "red", "ecn" },
                          where
                              + " queue: fifo (tail drop); ecn (DCQCN-style marking of "
                                "ECN-capable packets on the instantaneous queue, Kmin..Kmax "
                                "up to Pmax, all above Kmax; others only tail-dropped); red "
                                "(ns-3's RED with the same ramp, early-drops non-ECN packets)"));
    keys.push_back(Key(prefix + ".buffer_bytes", KeyType::Integer, buffer,
                       where + " buffer in bytes (tail drop above it)", 3000, 1e10));
    keys.push_back(Key(prefix + ".ecn_kmin_bytes", KeyType::Integer, 100000,
                       "red, ecn: queue length where marking starts", 0, 1e10));
    keys.push_back(Key(prefix + ".ecn_kmax_bytes", KeyType::Integer, 400000,
                       "red, ecn: queue length where marking reaches ecn_pmax (all marked above)",
                       1, 1e10));
    keys.push_back(Key(prefix + ".ecn_pmax", KeyType::Number, 0.2,
                       "red, ecn: marking probability at ecn_kmax_bytes", 1e-6, 1.0));
}

std::vector<KeySpec>
MakeKeys()
{
    std::vector<KeySpec> k;
    k.push_back(Key("name", KeyType::String, "scenario", "label used in outputs"));
    k.push_back(Key("seed", KeyType::Integer, 1,
                    "random seed (same scenario and seed give the same result, bit for bit)", 1,
                    4294967295.0));
    k.push_back(Choice("topology.configuration", "B", { "A", "B" },
                       "A: job on S0..S3, cross traffic leaves S0 (S0's NIC is the "
                       "bottleneck); B: job on S0,S1,S3, S2 sends to S0 (the ToR port "
                       "towards S0 is the bottleneck)"));
    k.push_back(
        Key("topology.link_rate_gbps", KeyType::Number, 25.0, "rate of every link", 0.001, 1000));
    k.push_back(Key("topology.link_delay_us", KeyType::Number, 1.0,
                    "propagation delay of every link", 0, 1e6));
    k.push_back(
        Key("topology.mtu_bytes", KeyType::Integer, 1500, "IP MTU of every link", 576, 9216));
    // Hosts: Linux's qdisc limit (1000 packets) counts TSO super-packets and TCP Small Queues
    // caps each socket near 1 MB, so a host does not drop its own TCP windows; ns-3 has
    // neither, so the default buffer is sized above the sockets' windows instead.
    AddQueueKeys(k, "topology.host_queue",
                 "every host NIC's egress (with job.transport rdma the NIC arbitrates RDMA and "
                 "TCP/IP round robin instead, this buffer for TCP/IP)",
                 8000000, "fifo");
    // The switch marks ECN-capable packets (RoCE) so that DCQCN works; TCP here is not
    // ECN-capable (tcp.ecn false), so for it ecn behaves exactly like fifo.
    AddQueueKeys(k, "topology.switch_queue", "every ToR port's egress", 4000000, "ecn");
    k.push_back(Key("topology.pfc.enabled", KeyType::Boolean, false,
                    "priority flow control for RoCE at the ToR (needs job.transport rdma)"));
    k.push_back(Key("topology.pfc.xoff_bytes", KeyType::Integer, 524288,
                    "PFC: pause a host when its RoCE bytes buffered in the ToR exceed this", 1500,
                    1e10));
    k.push_back(Key("topology.pfc.xon_bytes", KeyType::Integer, 521288,
                    "PFC: resume it at or below this", 0, 1e10));
    k.push_back(Key("job.enabled", KeyType::Boolean, true,
                    "run the training job (false: cross traffic alone for "
                    "simulation.duration_s)"));
    k.push_back(Key("job.model", KeyType::String, "resnet50",
                    "resnet50, densenet161, vgg16, bert-large, or a name defined under "
                    "models"));
    k.push_back(Choice("job.transport", "tcp", { "tcp", "rdma" },
                       "transport of the ring all-reduce: tcp (NCCL's socket transport) or "
                       "rdma (RoCEv2 with DCQCN)"));
    k.push_back(Key("job.compute_s", KeyType::Number, 0.0,
                    "total compute per iteration (forward + backward + step) overriding the "
                    "model's (0 = the model's own); split as the model profile splits it",
                    0, 1e5));
    k.push_back(Key("job.backward_share", KeyType::Number, 0.0,
                    "backward pass / (forward + backward) overriding the model's (0 = the "
                    "model's own): how much compute the ring all-reduce can hide behind",
                    0, 0.98));
    k.push_back(Key("job.compute_jitter_cv", KeyType::Number, -1.0,
                    "coefficient of variation of each compute phase, overriding the model's "
                    "(-1 = the model's own)",
                    -1, 0.3));
    k.push_back(Key("job.nccl.channels", KeyType::Integer, 1,
                    "NCCL channels: parallel rings, each with its own connections or queue "
                    "pair, each carrying 1/channels of every all-reduce",
                    1, 64));
    k.push_back(Key("job.nccl.slice_bytes", KeyType::Integer, 524288,
                    "NCCL slice: each ring step is pipelined in pieces of at most this size "
                    "(0 = whole steps)",
                    0, 1e12));
    k.push_back(Key("job.horovod.cycle_time_ms", KeyType::Number, 1.0,
                    "Horovod's cycle time (0.21 default: 1 ms)", 0.001, 1e5));
    k.push_back(Key("job.horovod.fusion_threshold_bytes", KeyType::Integer, 134217728,
                    "Horovod's fusion threshold (0.21 default: 128 MiB)", 1, 1e13));
    k.push_back(Key("job.rdma.mtu_bytes", KeyType::Integer, 1024,
                    "RoCE MTU (payload per packet; 1024 fits a 1500-byte IP MTU)", 64, 4096));
    k.push_back(Key("job.rdma.ack_interval", KeyType::Integer, 16,
                    "receiver ACKs every this many packets and each message's last", 1, 1e6));
    k.push_back(Key("job.rdma.cnp_interval_us", KeyType::Number, 50.0,
                    "at most one CNP per queue pair per this interval", 0, 1e6));
    k.push_back(Key("job.rdma.nak_interval_us", KeyType::Number, 500.0,
                    "an open sequence gap is NAKed again after this long", 0, 1e7));
    k.push_back(Key("job.rdma.retransmit_timeout_ms", KeyType::Number, 67.108864,
                    "go-back-N timeout for lost tails (NCCL_IB_TIMEOUT 14: 4.096 us x 2^14)", 0.001,
                    1e6));
    k.push_back(Key("job.rdma.nic_backpressure_bytes", KeyType::Integer, 4096,
                    "the NIC takes a queue pair's next packet only while less RDMA data than "
                    "this waits in its egress",
                    1, 1e9));
    k.push_back(Key("job.rdma.nic_weight", KeyType::Number, 1.0,
                    "RDMA's round-robin quantum in a NIC shared with TCP/IP, relative to each "
                    "TCP/IP send queue's (1 = byte-fair)",
                    0.01, 100));
    k.push_back(Key("job.rdma.nic_tcp_queues", KeyType::Integer, 32,
                    "TCP/IP send queues the NIC serves round robin beside RDMA (one per CPU "
                    "channel: 32 on the testbed's 32-core hosts); TCP/IP flows take them in "
                    "order of appearance, so k busy flows beside RDMA get k/(k+1) of the link "
                    "(1 = all TCP/IP shares one queue: byte-fair against RDMA)",
                    1, 1024));
    k.push_back(Key("dcqcn.alpha_gain", KeyType::Number, 1.0 / 256,
                    "DCQCN g: weight of the newest period in alpha", 1e-9, 1));
    k.push_back(Key("dcqcn.alpha_update_us", KeyType::Number, 55.0,
                    "DCQCN K: alpha decays once per such period without CNP", 0.001, 1e6));
    k.push_back(Key("dcqcn.rate_increase_us", KeyType::Number, 300.0,
                    "DCQCN T: rate-increase timer (ConnectX rpg_time_reset)", 0.001, 1e6));
    k.push_back(Key("dcqcn.byte_counter_bytes", KeyType::Integer, 2097088,
                    "DCQCN B: bytes per byte-counter stage (ConnectX rpg_byte_reset 32767 x 64)", 1,
                    1e12));
    k.push_back(Key("dcqcn.fast_recovery_steps", KeyType::Integer, 1,
                    "DCQCN F: fast-recovery stages (ConnectX rpg_threshold)", 0, 1000));
    k.push_back(Key("dcqcn.ai_mbps", KeyType::Number, 5.0,
                    "DCQCN additive increase step (ConnectX rpg_ai_rate)", 0, 1e6));
    k.push_back(Key("dcqcn.hai_mbps", KeyType::Number, 50.0,
                    "DCQCN hyper increase step (ConnectX rpg_hai_rate)", 0, 1e6));
    k.push_back(Key("dcqcn.min_rate_mbps", KeyType::Number, 1.0,
                    "DCQCN minimum rate (ConnectX rpg_min_rate)", 0.001, 1e6));
    k.push_back(Key("dcqcn.clamp_target_rate", KeyType::Boolean, false,
                    "every cut sets the target rate to the current rate (ConnectX "
                    "clamp_tgt_rate; off: only if the rate rose since the previous cut)"));
    k.push_back(Key("dcqcn.min_decrease_factor", KeyType::Number, 0.5,
                    "one cut keeps at least this fraction of the rate (rpg_min_dec_fac)", 0, 1));
    k.push_back(Key("job.iterations", KeyType::Integer, 10,
                    "training iterations to run, warm-up included", 1, 1e7));
    k.push_back(Key("job.warmup_iterations", KeyType::Integer, 2,
                    "first iterations left out of the statistics (must be below "
                    "job.iterations)",
                    0, 1e7));
    k.push_back(Key("job.tcp.sockets_per_peer", KeyType::Integer, 2,
                    "TCP connections from each worker to the next (NCCL sockets)", 1, 64));
    k.push_back(Key("job.tcp.host_ceiling_gbps", KeyType::Number, 0.0,
                    "host-side throughput ceiling of NCCL's socket path per worker (0 = none; "
                    "the testbed's, fitted by flumen calibrate, is in "
                    "validation/calibration.json)",
                    0, 1000));
    k.push_back(Choice("cross_traffic.type", "none",
                       { "none", "iperf", "websearch", "burst", "replay" },
                       "cross traffic: none; iperf (long-lived TCP streams paced to "
                       "load/streams each); websearch (a new TCP connection per flow, sizes "
                       "from the web-search CDF); burst (web-search with periodic bursts); "
                       "replay (the flows of a testbed load file, cross_traffic.file)"));
    k.push_back(Key("cross_traffic.load_gbps", KeyType::Number, 0.0,
                    "offered cross-traffic load (at most the link rate)", 0, 1000));
    k.push_back(
        Key("cross_traffic.streams", KeyType::Integer, 4, "iperf parallel streams (-P)", 1, 64));
    k.push_back(Choice("cross_traffic.arrivals", "testbed", { "testbed", "exponential" },
                       "websearch flow start gaps: testbed = Poisson-distributed whole "
                       "microseconds (nearly periodic, as the testbed drew them); "
                       "exponential = textbook Poisson arrivals"));
    k.push_back(Key("cross_traffic.size_block_flows", KeyType::Integer, 1000,
                    "websearch flow sizes in stratified blocks of this many flows: each block "
                    "holds the CDF's sizes in their exact proportions, in random order, so a "
                    "run of seconds offers the requested load (0: independent draws, as the "
                    "testbed's generator, whose heavy tail makes a short run's load vary by "
                    "+-10 %)",
                    0, 1e7));
    k.push_back(Key("cross_traffic.size_cdf", KeyType::String, "",
                    "flow-size CDF file (`size_in_packets 1 cumulative_probability` lines, "
                    "1460-byte packets; relative to the scenario file); empty = the "
                    "testbed's web-search CDF"));
    k.push_back(Key("cross_traffic.file", KeyType::String, "",
                    "replay: testbed load file (first line N, then `start_us size_bytes "
                    "dest_index`; relative to the scenario file)"));
    k.push_back(Key("cross_traffic.burst.width_us", KeyType::Integer, 1000,
                    "burst: width of the burst window", 1, 1e7));
    k.push_back(Key("cross_traffic.burst.period_multiple", KeyType::Integer, 10,
                    "burst: period = period_multiple x width_us", 2, 1e6));
    k.push_back(Key("cross_traffic.burst.share", KeyType::Number, 0.3,
                    "burst: fraction of each period's bytes in its two burst flows", 0, 1));
    k.push_back(Key("cross_traffic.burst.min_flows", KeyType::Integer, 8,
                    "burst: fewest web-search flows outside the burst (sizes scaled down "
                    "when fewer would be drawn)",
                    1, 1e6));
    k.push_back(Key("cross_traffic.start_s", KeyType::Number, 0.0,
                    "when the cross traffic starts (the job starts at 0)", 0, 1e6));
    k.push_back(Choice("tcp.congestion_control", "cubic", { "cubic", "newreno", "dctcp" },
                       "TCP congestion control of every host"));
    k.push_back(Key("tcp.snd_buf_bytes", KeyType::Integer, 1048576, "TCP send buffer per socket",
                    4096, 1e9));
    k.push_back(Key("tcp.rcv_buf_bytes", KeyType::Integer, 1048576,
                    "TCP receive buffer per socket (bounds the window; ns-3 has no "
                    "autotuning)",
                    4096, 1e9));
    k.push_back(Key("tcp.time_wait_ms", KeyType::Number, 1.0,
                    "TIME_WAIT of closed connections (2 x MSL). ns-3 holds the local port "
                    "for all of it and has 16k ephemeral ports; Linux reuses TIME_WAIT "
                    "ports for new outgoing connections, so a short TIME_WAIT stands in",
                    0.001, 240000));
    k.push_back(Key("tcp.min_rto_ms", KeyType::Number, 200.0,
                    "minimum retransmission timeout (Linux: 200 ms)", 0.001, 1e6));
    k.push_back(
        Key("tcp.delayed_ack_count", KeyType::Integer, 2, "segments per delayed ACK", 1, 64));
    // ns-3's default is 200 ms (Linux's ceiling, TCP_DELACK_MAX). Linux starts from 40 ms
    // (TCP_DELACK_MIN, TCP_ATO_MIN) and ACKs at once after out-of-order data. With 200 ms a
    // connection back from a timeout at one segment of window waited 200 ms per ACK: a
    // TCP ring under 20 Gbps iperf stalled for 0.5 s and more.
    k.push_back(Key("tcp.delayed_ack_timeout_ms", KeyType::Number, 40.0,
                    "delayed-ACK timer (Linux: 40 ms at least, TCP_DELACK_MIN)", 0.001, 1e6));
    // ns-3.37's SACK scoreboard stalls a connection after a lost retransmission: it
    // overestimates bytes in flight and sends one segment per RTO (seen on the quickstart:
    // with SACK, no ResNet-50 iteration finished in 1.8 s; without, 0.29 s each). So the
    // default is NewReno-style recovery on cumulative ACKs, an approximation of Linux.
    k.push_back(Key("tcp.sack", KeyType::Boolean, false,
                    "TCP selective acknowledgements (Linux: on; off by default here because "
                    "ns-3.37's SACK recovery stalls after a lost retransmission)"));
    // ns-3 builds an Object (ObjectFactory, attribute lookups) for every TCP option it parses,
    // three times per received segment: with timestamps that is 8-9 % of a TCP scenario's
    // time. Off, segments carry no options and the MSS grows by the option's 12 bytes, so
    // full segments keep their wire size. A speed option, not Linux's behaviour.
    k.push_back(Key("tcp.timestamps", KeyType::Boolean, true,
                    "TCP timestamp option (Linux: on). Off runs TCP scenarios faster; the "
                    "MSS then grows by 12 bytes so full segments keep the MTU's wire size"));
    k.push_back(Key("tcp.ecn", KeyType::Boolean, false,
                    "TCP negotiates ECN (Linux default: only when asked, so off)"));
    k.push_back(Key("simulation.max_time_s", KeyType::Number, 600.0,
                    "simulated-time limit; a job not finished by then is an error", 1e-6, 1e7));
    k.push_back(Choice("simulation.on_max_time", "error", { "error", "report" },
                       "a job unfinished at simulation.max_time_s: error (nothing written), or "
                       "report (the iterations that finished, job_finished = false and a lower "
                       "bound on the mean iteration time)"));
    k.push_back(Key("simulation.duration_s", KeyType::Number, 0.0,
                    "simulated time to run when job.enabled is false (0 = until the job "
                    "finishes)",
                    0, 1e7));
    k.push_back(Choice("simulation.scheduler", "map",
                       { "map", "heap", "calendar", "priority_queue", "list" },
                       "ns-3 event scheduler (map was fastest here; calendar was 16x "
                       "slower with TCP's many cancelled timers)"));
    k.push_back(Key("outputs.link_bin_us", KeyType::Number, 100.0,
                    "bin width of link.csv, the bottleneck's time series (0 = no link.csv)", 0,
                    1e9));
    k.push_back(Key("simulation.progress_interval_s", KeyType::Number, 2.0,
                    "wall seconds between progress lines on stderr (0 = none)", 0, 1e6));
    return k;
}

std::vector<KeySpec>
MakeModelKeys()
{
    return {
        Key("parameters", KeyType::Integer, json(), "trainable parameters (fp32 gradients)", 1,
            1e13),
        Key("compute_s", KeyType::Number, json(),
            "compute time of one iteration, communication excluded", 0, 1e5),
        Key("compute_jitter_cv", KeyType::Number, 0.0,
            "coefficient of variation of the compute time", 0, 0.3),
        Key("backward_share", KeyType::Number, ns3::ModelProfile::kDefaultBackwardShare,
            "backward pass / (forward + backward)", 0.02, 0.98),
    };
}

const char*
TypeName(KeyType t)
{
    switch (t)
    {
    case KeyType::Integer:
        return "an integer";
    case KeyType::Number:
        return "a number";
    case KeyType::String:
        return "a string";
    case KeyType::Boolean:
        return "true or false";
    }
    return "?";
}

std::string
Short(const json& v)
{
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string
Bound(double v)
{
    return fmt::format("{:g}", v);
}

[[noreturn]] void
Fail(const std::string& source, const std::string& key, const std::string& what)
{
    throw ScenarioError(fmt::format("{}: key '{}': {}", source, key, what));
}

void
CheckValue(const std::string& source, const std::string& key, const KeySpec& spec, const json& v)
{
    bool ok = false;
    switch (spec.type)
    {
    case KeyType::Integer:
        ok = v.is_number_integer();
        break;
    case KeyType::Number:
        ok = v.is_number();
        break;
    case KeyType::String:
        ok = v.is_string();
        break;
    case KeyType::Boolean:
        ok = v.is_boolean();
        break;
    }
    if (!ok)
    {
        Fail(source, key, fmt::format("expected {}, got {}", TypeName(spec.type), Short(v)));
    }
    if (v.is_number())
    {
        double x = v.get<double>();
        if (!std::isfinite(x) || x < spec.min || x > spec.max)
        {
            Fail(source, key,
                 fmt::format("expected {} between {} and {}, got {}", TypeName(spec.type),
                             Bound(spec.min), Bound(spec.max), Short(v)));
        }
    }
    if (v.is_string() && !spec.choices.empty())
    {
        std::string s = v.get<std::string>();
        bool found = false;
        for (const auto& c : spec.choices)
        {
            found = found || c == s;
        }
        if (!found)
        {
            std::string list;
            for (const auto& c : spec.choices)
            {
                list += (list.empty() ? "" : ", ") + c;
            }
            Fail(source, key, fmt::format("expected one of {}, got {}", list, Short(v)));
        }
    }
}

const KeySpec*
FindKey(const std::vector<KeySpec>& keys, const std::string& path)
{
    for (const auto& k : keys)
    {
        if (k.path == path)
        {
            return &k;
        }
    }
    return nullptr;
}

// Is `prefix` an object level of some key (e.g. "topology" or "job.tcp")?
bool
IsSection(const std::vector<KeySpec>& keys, const std::string& prefix)
{
    for (const auto& k : keys)
    {
        if (k.path.rfind(prefix + ".", 0) == 0)
        {
            return true;
        }
    }
    return false;
}

std::string
KnownUnder(const std::vector<KeySpec>& keys, const std::string& prefix)
{
    std::set<std::string> names;
    for (const auto& k : keys)
    {
        if (prefix.empty() || k.path.rfind(prefix + ".", 0) == 0)
        {
            std::string rest = prefix.empty() ? k.path : k.path.substr(prefix.size() + 1);
            names.insert(rest.substr(0, rest.find('.')));
        }
    }
    if (prefix.empty())
    {
        names.insert("models");
    }
    std::string out;
    for (const auto& n : names)
    {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

void
SetPath(json& root, const std::string& path, const json& value)
{
    json* node = &root;
    std::stringstream ss(path);
    std::string part;
    std::vector<std::string> parts;
    while (std::getline(ss, part, '.'))
    {
        parts.push_back(part);
    }
    for (size_t i = 0; i + 1 < parts.size(); ++i)
    {
        if (!node->contains(parts[i]) || !(*node)[parts[i]].is_object())
        {
            (*node)[parts[i]] = json::object();
        }
        node = &(*node)[parts[i]];
    }
    (*node)[parts.back()] = value;
}

// Walks the user's object; every leaf must be a known key of the right type and range.
void
CheckTree(const std::string& source, const json& node, const std::string& prefix,
          const std::vector<KeySpec>& keys)
{
    for (auto it = node.begin(); it != node.end(); ++it)
    {
        std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (prefix.empty() && it.key() == "models")
        {
            continue; // checked apart: the names below it are the user's
        }
        if (const KeySpec* spec = FindKey(keys, path))
        {
            CheckValue(source, path, *spec, it.value());
        }
        else if (IsSection(keys, path))
        {
            if (!it.value().is_object())
            {
                Fail(source, path,
                     fmt::format("expected an object with keys {}, got {}", KnownUnder(keys, path),
                                 Short(it.value())));
            }
            CheckTree(source, it.value(), path, keys);
        }
        else
        {
            Fail(source, path,
                 fmt::format("unknown key (known keys{}: {})",
                             prefix.empty() ? "" : " under '" + prefix + "'",
                             KnownUnder(keys, prefix)));
        }
    }
}

json
Get(const json& root, const std::string& path)
{
    const json* node = &root;
    std::stringstream ss(path);
    std::string part;
    while (std::getline(ss, part, '.'))
    {
        node = &node->at(part);
    }
    return *node;
}

QueueSettings
ReadQueue(const json& r, const std::string& prefix)
{
    QueueSettings q;
    q.discipline = Get(r, prefix + ".discipline").get<std::string>();
    q.bufferBytes = Get(r, prefix + ".buffer_bytes").get<uint64_t>();
    q.ecnKminBytes = Get(r, prefix + ".ecn_kmin_bytes").get<uint64_t>();
    q.ecnKmaxBytes = Get(r, prefix + ".ecn_kmax_bytes").get<uint64_t>();
    q.ecnPmax = Get(r, prefix + ".ecn_pmax").get<double>();
    return q;
}

void
CheckQueue(const std::string& source, const QueueSettings& q, const std::string& prefix)
{
    if (q.discipline != "fifo" && q.ecnKminBytes >= q.ecnKmaxBytes)
    {
        Fail(source, prefix + ".ecn_kmin_bytes",
             fmt::format("expected below ecn_kmax_bytes ({}), got {}", q.ecnKmaxBytes,
                         q.ecnKminBytes));
    }
}

// A path from the scenario, relative to the scenario file's folder unless absolute.
std::string
ScenarioRelative(const std::string& source, const std::string& path)
{
    std::filesystem::path p(path);
    if (p.is_absolute())
    {
        return path;
    }
    return (std::filesystem::path(source).parent_path() / p).lexically_normal().string();
}

// The testbed generator's web-search CDF (shared/testbed/generator/websearch_cdf.txt).
ns3::FlowSizeCdf
TestbedWebSearchCdf()
{
    return ns3::FlowSizeCdf({ { 3, 0 },
                              { 6, 0.15 },
                              { 13, 0.2 },
                              { 19, 0.3 },
                              { 33, 0.4 },
                              { 53, 0.53 },
                              { 133, 0.6 },
                              { 667, 0.7 },
                              { 1333, 0.8 },
                              { 3333, 0.9 },
                              { 6667, 0.97 },
                              { 20000, 1 } });
}

// Reads the CDF and the replay file now, so that bad files fail before anything runs.
void
LoadCrossTrafficFiles(Scenario& s, const std::string& cdfPath, const std::string& replayPath)
{
    if (cdfPath.empty())
    {
        s.sizeCdf = TestbedWebSearchCdf();
    }
    else
    {
        try
        {
            s.sizeCdf = ns3::FlowSizeCdf::Load(ScenarioRelative(s.source, cdfPath));
        }
        catch (const ns3::FlowSizeCdfError& e)
        {
            Fail(s.source, "cross_traffic.size_cdf", e.what());
        }
    }
    s.replayFlows.clear();
    if (s.crossType != "replay")
    {
        return;
    }
    if (replayPath.empty())
    {
        Fail(s.source, "cross_traffic.file",
             "expected the path of a load file for cross_traffic.type 'replay'");
    }
    std::string path = ScenarioRelative(s.source, replayPath);
    try
    {
        s.replayFlows = ReadLoadFile(path);
    }
    catch (const LoadFileError& e)
    {
        Fail(s.source, "cross_traffic.file", e.what());
    }
    for (size_t i = 0; i < s.replayFlows.size(); ++i)
    {
        const auto& f = s.replayFlows[i];
        // Configurations A and B each have one cross-traffic destination: index 0.
        if (f.destination != 0)
        {
            Fail(s.source, "cross_traffic.file",
                 fmt::format("{}:{}: destination index {}, but configuration {} has one "
                             "cross-traffic destination (index 0)",
                             path, i + 2, f.destination, s.configuration));
        }
        if (f.sizeBytes >= (1ULL << 32))
        {
            Fail(s.source, "cross_traffic.file",
                 fmt::format("{}:{}: flow size {} B, expected below 4 GiB", path, i + 2,
                             f.sizeBytes));
        }
    }
}

} // namespace

const std::vector<KeySpec>&
ScenarioKeys()
{
    static const std::vector<KeySpec> keys = MakeKeys();
    return keys;
}

const std::vector<KeySpec>&
ModelKeys()
{
    static const std::vector<KeySpec> keys = MakeModelKeys();
    return keys;
}

std::string
ModelVersion(const Scenario& s)
{
    return s.crossType == "websearch"
               ? fmt::format("{}; web-search {}", kSimulationModelVersion, kWebSearchModelVersion)
               : std::string(kSimulationModelVersion);
}

bool
ParseSeconds(const std::string& text, double& out)
{
    try
    {
        size_t used = 0;
        out = std::stod(text, &used);
        return used == text.size() && out > 0 && out <= 1e6;
    }
    catch (const std::exception&)
    {
        return false;
    }
}

json
LoadScenarioFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw ScenarioError(fmt::format("{}: cannot open the scenario file", path));
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json j;
    try
    {
        j = json::parse(text);
    }
    catch (const json::parse_error& e)
    {
        // Turn the byte offset into a line and column.
        size_t line = 1;
        size_t col = 1;
        for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i)
        {
            if (text[i] == '\n')
            {
                ++line;
                col = 1;
            }
            else
            {
                ++col;
            }
        }
        std::string what = e.what();
        auto pos = what.find("syntax error");
        throw ScenarioError(fmt::format("{}:{}:{}: invalid JSON: {}", path, line, col,
                                        pos == std::string::npos ? what : what.substr(pos)));
    }
    if (!j.is_object())
    {
        throw ScenarioError(fmt::format("{}: expected a JSON object at the top level", path));
    }
    return j;
}

void
SetKey(json& scenario, const std::string& key, const json& value)
{
    bool isModelKey = key.rfind("models.", 0) == 0 && std::count(key.begin(), key.end(), '.') == 2;
    if (!FindKey(ScenarioKeys(), key) && !isModelKey)
    {
        throw ScenarioError(fmt::format("key '{}': unknown key (see ./flumen keys)", key));
    }
    SetPath(scenario, key, value);
}

void
ApplyOverride(json& scenario, const std::string& assignment)
{
    auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        throw ScenarioError(fmt::format(
            "--set '{}': expected key=value, e.g. cross_traffic.load_gbps=10", assignment));
    }
    std::string key = assignment.substr(0, eq);
    std::string text = assignment.substr(eq + 1);
    bool isModelKey = key.rfind("models.", 0) == 0 && std::count(key.begin(), key.end(), '.') == 2;
    if (!FindKey(ScenarioKeys(), key) && !isModelKey)
    {
        throw ScenarioError(fmt::format("--set: key '{}': unknown key (see ./flumen keys)", key));
    }
    json value;
    try
    {
        value = json::parse(text);
    }
    catch (const json::parse_error&)
    {
        value = text; // a bare word is a string: --set job.model=vgg16
    }
    SetPath(scenario, key, value);
}

Scenario
ResolveScenario(const json& user, const std::string& source)
{
    const auto& keys = ScenarioKeys();
    if (!user.is_object())
    {
        throw ScenarioError(fmt::format("{}: expected a JSON object at the top level", source));
    }
    CheckTree(source, user, "", keys);

    // User-defined models.
    std::map<std::string, ModelSettings> userModels;
    json models = user.contains("models") ? user.at("models") : json::object();
    if (!models.is_object())
    {
        Fail(source, "models",
             fmt::format("expected an object of model name -> {{parameters, compute_s, "
                         "compute_jitter_cv}}, got {}",
                         Short(models)));
    }
    json resolvedModels = json::object();
    for (auto it = models.begin(); it != models.end(); ++it)
    {
        std::string base = "models." + it.key();
        if (!it.value().is_object())
        {
            Fail(source, base,
                 fmt::format("expected an object with parameters, compute_s, "
                             "compute_jitter_cv, got {}",
                             Short(it.value())));
        }
        json m;
        for (const auto& spec : ModelKeys())
        {
            if (!it.value().contains(spec.path))
            {
                if (spec.defaultValue.is_null())
                {
                    Fail(source, base + "." + spec.path,
                         fmt::format("missing: expected {} ({})", TypeName(spec.type), spec.help));
                }
                m[spec.path] = spec.defaultValue;
            }
            else
            {
                CheckValue(source, base + "." + spec.path, spec, it.value().at(spec.path));
                m[spec.path] = it.value().at(spec.path);
            }
        }
        for (auto f = it.value().begin(); f != it.value().end(); ++f)
        {
            if (!FindKey(ModelKeys(), f.key()))
            {
                Fail(source, base + "." + f.key(),
                     "unknown key (known: parameters, compute_s, compute_jitter_cv, "
                     "backward_share)");
            }
        }
        ModelSettings ms;
        ms.name = it.key();
        ms.parameters = m["parameters"].get<uint64_t>();
        ms.computeJitterCv = m["compute_jitter_cv"].get<double>();
        ms.SetComputeSeconds(m["compute_s"].get<double>(), m["backward_share"].get<double>());
        userModels[it.key()] = ms;
        resolvedModels[it.key()] = m;
    }

    // Defaults, then the user's values on top.
    json r = json::object();
    for (const auto& spec : keys)
    {
        SetPath(r, spec.path, spec.defaultValue);
    }
    for (const auto& spec : keys)
    {
        json::json_pointer ptr("/" +
                               [&]
                               {
                                   std::string p = spec.path;
                                   std::replace(p.begin(), p.end(), '.', '/');
                                   return p;
                               }());
        if (user.contains(ptr))
        {
            SetPath(r, spec.path, user.at(ptr));
        }
    }
    r["models"] = resolvedModels;

    Scenario s;
    s.source = source;
    s.name = r["name"].get<std::string>();
    s.seed = r["seed"].get<uint64_t>();
    s.configuration = Get(r, "topology.configuration").get<std::string>()[0];
    s.linkRateGbps = Get(r, "topology.link_rate_gbps").get<double>();
    s.linkDelayUs = Get(r, "topology.link_delay_us").get<double>();
    s.mtuBytes = Get(r, "topology.mtu_bytes").get<uint32_t>();
    s.hostQueue = ReadQueue(r, "topology.host_queue");
    s.switchQueue = ReadQueue(r, "topology.switch_queue");
    CheckQueue(source, s.hostQueue, "topology.host_queue");
    CheckQueue(source, s.switchQueue, "topology.switch_queue");

    s.jobEnabled = Get(r, "job.enabled").get<bool>();
    std::string modelName = Get(r, "job.model").get<std::string>();
    if (auto it = userModels.find(modelName); it != userModels.end())
    {
        s.model = it->second;
    }
    else if (auto builtIn = ns3::ModelProfile::BuiltIn(modelName))
    {
        s.model = *builtIn;
    }
    else
    {
        std::string known;
        for (const auto& n : ns3::ModelProfile::BuiltInNames())
        {
            known += (known.empty() ? "" : ", ") + n;
        }
        for (const auto& [n, m] : userModels)
        {
            known += ", " + n;
        }
        Fail(source, "job.model",
             fmt::format("unknown model '{}' (expected one of {}, or define it under models)",
                         modelName, known));
    }
    s.transport = Get(r, "job.transport").get<std::string>();
    s.iterations = Get(r, "job.iterations").get<uint32_t>();
    s.warmupIterations = Get(r, "job.warmup_iterations").get<uint32_t>();
    if (s.warmupIterations >= s.iterations)
    {
        Fail(source, "job.warmup_iterations",
             fmt::format("expected fewer than job.iterations ({}) so that some iterations "
                         "are measured, got {}",
                         s.iterations, s.warmupIterations));
    }
    s.socketsPerPeer = Get(r, "job.tcp.sockets_per_peer").get<uint32_t>();
    s.hostCeilingGbps = Get(r, "job.tcp.host_ceiling_gbps").get<double>();
    if (double c = Get(r, "job.compute_s").get<double>(); c > 0)
    {
        s.model.SetComputeSeconds(c);
    }
    if (double share = Get(r, "job.backward_share").get<double>(); share > 0)
    {
        s.model.SetComputeSeconds(s.model.ComputeSeconds(), share);
    }
    if (double cv = Get(r, "job.compute_jitter_cv").get<double>(); cv >= 0)
    {
        s.model.computeJitterCv = cv;
    }
    s.ncclChannels = Get(r, "job.nccl.channels").get<uint32_t>();
    s.ncclSliceBytes = Get(r, "job.nccl.slice_bytes").get<uint64_t>();
    s.horovodCycleMs = Get(r, "job.horovod.cycle_time_ms").get<double>();
    s.horovodFusionBytes = Get(r, "job.horovod.fusion_threshold_bytes").get<uint64_t>();
    s.rdma.mtuBytes = Get(r, "job.rdma.mtu_bytes").get<uint32_t>();
    s.rdma.ackInterval = Get(r, "job.rdma.ack_interval").get<uint32_t>();
    s.rdma.cnpIntervalUs = Get(r, "job.rdma.cnp_interval_us").get<double>();
    s.rdma.nakIntervalUs = Get(r, "job.rdma.nak_interval_us").get<double>();
    s.rdma.retransmitTimeoutMs = Get(r, "job.rdma.retransmit_timeout_ms").get<double>();
    s.rdma.nicBackpressureBytes = Get(r, "job.rdma.nic_backpressure_bytes").get<uint32_t>();
    s.rdma.nicWeight = Get(r, "job.rdma.nic_weight").get<double>();
    s.rdma.nicTcpQueues = Get(r, "job.rdma.nic_tcp_queues").get<uint32_t>();
    if (s.rdma.mtuBytes + 44 > s.mtuBytes)
    {
        Fail(source, "job.rdma.mtu_bytes",
             fmt::format("expected at most topology.mtu_bytes - 44 ({}: IPv4, UDP and RoCE "
                         "headers must fit), got {}",
                         s.mtuBytes - 44, s.rdma.mtuBytes));
    }
    s.dcqcn.alphaGain = Get(r, "dcqcn.alpha_gain").get<double>();
    s.dcqcn.alphaUpdateUs = Get(r, "dcqcn.alpha_update_us").get<double>();
    s.dcqcn.rateIncreaseUs = Get(r, "dcqcn.rate_increase_us").get<double>();
    s.dcqcn.byteCounterBytes = Get(r, "dcqcn.byte_counter_bytes").get<uint64_t>();
    s.dcqcn.fastRecoverySteps = Get(r, "dcqcn.fast_recovery_steps").get<uint32_t>();
    s.dcqcn.aiMbps = Get(r, "dcqcn.ai_mbps").get<double>();
    s.dcqcn.haiMbps = Get(r, "dcqcn.hai_mbps").get<double>();
    s.dcqcn.minRateMbps = Get(r, "dcqcn.min_rate_mbps").get<double>();
    s.dcqcn.minDecreaseFactor = Get(r, "dcqcn.min_decrease_factor").get<double>();
    s.dcqcn.clampTargetRate = Get(r, "dcqcn.clamp_target_rate").get<bool>();
    s.pfcEnabled = Get(r, "topology.pfc.enabled").get<bool>();
    s.pfcXoffBytes = Get(r, "topology.pfc.xoff_bytes").get<uint32_t>();
    s.pfcXonBytes = Get(r, "topology.pfc.xon_bytes").get<uint32_t>();
    if (s.pfcXonBytes > s.pfcXoffBytes)
    {
        Fail(source, "topology.pfc.xon_bytes",
             fmt::format("expected at most topology.pfc.xoff_bytes ({}), got {}", s.pfcXoffBytes,
                         s.pfcXonBytes));
    }
    if (s.pfcEnabled && s.transport != "rdma")
    {
        Fail(source, "topology.pfc.enabled",
             "PFC protects the RoCE class: expected job.transport \"rdma\" with it");
    }

    s.crossType = Get(r, "cross_traffic.type").get<std::string>();
    s.crossLoadGbps = Get(r, "cross_traffic.load_gbps").get<double>();
    s.crossStreams = Get(r, "cross_traffic.streams").get<uint32_t>();
    s.crossStartS = Get(r, "cross_traffic.start_s").get<double>();
    s.crossArrivals = Get(r, "cross_traffic.arrivals").get<std::string>();
    s.crossSizeBlockFlows = Get(r, "cross_traffic.size_block_flows").get<uint32_t>();
    s.burstWidthUs = Get(r, "cross_traffic.burst.width_us").get<uint64_t>();
    s.burstPeriodMultiple = Get(r, "cross_traffic.burst.period_multiple").get<uint32_t>();
    s.burstShare = Get(r, "cross_traffic.burst.share").get<double>();
    s.burstMinFlows = Get(r, "cross_traffic.burst.min_flows").get<uint32_t>();
    LoadCrossTrafficFiles(s, Get(r, "cross_traffic.size_cdf").get<std::string>(),
                          Get(r, "cross_traffic.file").get<std::string>());
    // iperf paces each stream; beyond the link rate that means nothing. A flow generator may
    // offer more than the link carries (flows then pile up at the sender), as the testbed's
    // extended TCP runs did at 25.5 and 26 Gbps.
    const bool flows = s.crossType == "websearch" || s.crossType == "burst";
    const double maxLoad = flows ? 1.5 * s.linkRateGbps : s.linkRateGbps;
    if (s.crossLoadGbps > maxLoad)
    {
        Fail(source, "cross_traffic.load_gbps",
             fmt::format("expected at most {}the link rate (topology.link_rate_gbps = {}){}, "
                         "got {}",
                         flows ? "1.5 x " : "", s.linkRateGbps,
                         flows ? " for a flow generator" : "", s.crossLoadGbps));
    }
    if (s.crossType != "none" && s.crossType != "replay" && s.crossLoadGbps <= 0)
    {
        Fail(source, "cross_traffic.load_gbps",
             fmt::format("expected a load above 0 for cross_traffic.type '{}', got {}", s.crossType,
                         s.crossLoadGbps));
    }

    s.tcpCongestionControl = Get(r, "tcp.congestion_control").get<std::string>();
    s.tcpSndBufBytes = Get(r, "tcp.snd_buf_bytes").get<uint32_t>();
    s.tcpRcvBufBytes = Get(r, "tcp.rcv_buf_bytes").get<uint32_t>();
    s.tcpMinRtoMs = Get(r, "tcp.min_rto_ms").get<double>();
    s.tcpTimeWaitMs = Get(r, "tcp.time_wait_ms").get<double>();
    s.linkBinUs = Get(r, "outputs.link_bin_us").get<double>();
    s.tcpDelayedAckCount = Get(r, "tcp.delayed_ack_count").get<uint32_t>();
    s.tcpDelayedAckTimeoutMs = Get(r, "tcp.delayed_ack_timeout_ms").get<double>();
    s.tcpEcn = Get(r, "tcp.ecn").get<bool>();
    s.tcpSack = Get(r, "tcp.sack").get<bool>();
    s.tcpTimestamps = Get(r, "tcp.timestamps").get<bool>();

    s.maxTimeS = Get(r, "simulation.max_time_s").get<double>();
    s.reportUnfinished = Get(r, "simulation.on_max_time").get<std::string>() == "report";
    s.durationS = Get(r, "simulation.duration_s").get<double>();
    s.scheduler = Get(r, "simulation.scheduler").get<std::string>();
    s.progressIntervalS = Get(r, "simulation.progress_interval_s").get<double>();
    if (!s.jobEnabled && s.durationS <= 0)
    {
        Fail(source, "simulation.duration_s",
             "expected a duration above 0 when job.enabled is false (nothing else ends the "
             "run)");
    }
    if (!s.jobEnabled && s.crossType == "none")
    {
        Fail(source, "job.enabled", "expected true, or some cross_traffic: nothing to simulate");
    }
    if (s.durationS > s.maxTimeS)
    {
        Fail(source, "simulation.duration_s",
             fmt::format("expected at most simulation.max_time_s ({}), got {}", s.maxTimeS,
                         s.durationS));
    }
    s.resolved = r;
    return s;
}

json
LoadCalibration(const std::string& path)
{
    json calibration = LoadScenarioFile(path);
    json probe = json::object();
    ApplyCalibration(probe, calibration, path); // the file's shape
    for (const auto& entry : calibration["models"].items())
    {
        json one = { { "job", { { "model", entry.key() } } } };
        ApplyCalibration(one, calibration, path); // every model's entry
    }
    return calibration;
}

bool
ApplyCalibration(json& scenario, const json& calibration, const std::string& calibrationSource)
{
    if (!calibration.is_object() || !calibration.contains("models")
        || !calibration["models"].is_object())
    {
        throw ScenarioError(fmt::format("{}: expected an object with \"models\" (a calibration "
                                        "file written by flumen calibrate)",
                                        calibrationSource));
    }
    if (calibration.contains("transports"))
    {
        // The host's TCP ceiling (fitted by calibrate where the testbed ran TCP), unless the
        // scenario sets its own; it only acts on a TCP job.
        const json& t = calibration["transports"];
        if (!t.is_object() || (t.contains("tcp") && !t["tcp"].is_object()))
        {
            throw ScenarioError(fmt::format("{}: key 'transports': expected an object of "
                                            "transports (\"tcp\": {{\"host_ceiling_gbps\": "
                                            "...}})",
                                            calibrationSource));
        }
        if (t.contains("tcp"))
        {
            const json& tcp = t["tcp"];
            if (!tcp.contains("host_ceiling_gbps") || !tcp["host_ceiling_gbps"].is_number()
                || !(tcp["host_ceiling_gbps"].get<double>() >= 0))
            {
                throw ScenarioError(fmt::format("{}: key 'transports.tcp.host_ceiling_gbps': "
                                                "expected a number of Gbps (0 = none)",
                                                calibrationSource));
            }
            bool set = scenario.contains("job") && scenario["job"].contains("tcp")
                       && scenario["job"]["tcp"].contains("host_ceiling_gbps");
            if (!set)
            {
                scenario["job"]["tcp"]["host_ceiling_gbps"] = tcp["host_ceiling_gbps"];
            }
        }
    }
    std::string model = "resnet50";
    if (scenario.contains("job") && scenario["job"].contains("model")
        && scenario["job"]["model"].is_string())
    {
        model = scenario["job"]["model"].get<std::string>();
    }
    if (!calibration["models"].contains(model))
    {
        return false;
    }
    const json& m = calibration["models"][model];
    // Each field fills the job unless the scenario sets its own. A calibration without a
    // backward share (one fitted parameter) keeps the model's.
    struct Field
    {
        const char* name;
        bool required;
        double min, max; //!< open below, closed above
    };
    for (const Field& f : { Field{ "compute_s", true, -1e300, 1e300 },
                            Field{ "compute_jitter_cv", true, -1e300, 1e300 },
                            Field{ "backward_share", false, 0, 0.98 } })
    {
        if (!f.required && !m.contains(f.name))
        {
            continue;
        }
        if (!m.contains(f.name) || !m[f.name].is_number())
        {
            throw ScenarioError(fmt::format("{}: key 'models.{}.{}': expected a number",
                                            calibrationSource, model, f.name));
        }
        double v = m[f.name].get<double>();
        if (!(v > f.min && v <= f.max))
        {
            throw ScenarioError(fmt::format("{}: key 'models.{}.{}': expected a number in ({}, "
                                            "{}], got {}",
                                            calibrationSource, model, f.name, f.min, f.max,
                                            m[f.name].dump()));
        }
        if (!(scenario.contains("job") && scenario["job"].contains(f.name)))
        {
            scenario["job"][f.name] = m[f.name];
        }
    }
    return true;
}

std::string
DescribeKeys()
{
    std::string out;
    for (const auto& k : ScenarioKeys())
    {
        std::string range;
        if (!k.choices.empty())
        {
            for (const auto& c : k.choices)
            {
                range += (range.empty() ? "" : "|") + c;
            }
        }
        else if (k.type == KeyType::Integer || k.type == KeyType::Number)
        {
            range = fmt::format("{}..{}", Bound(k.min), Bound(k.max));
        }
        out += fmt::format("{:<36} {:<8} default {:<10} {}{}\n", k.path,
                           k.type == KeyType::Integer  ? "integer"
                           : k.type == KeyType::Number ? "number"
                           : k.type == KeyType::String ? "string"
                                                       : "boolean",
                           k.defaultValue.dump(), k.help, range.empty() ? "" : " [" + range + "]");
    }
    out += fmt::format("{:<36} {:<8} {:<18} {}\n", "models.<name>.parameters", "integer", "",
                       "a user-defined model: trainable parameters");
    out += fmt::format("{:<36} {:<8} {:<18} {}\n", "models.<name>.compute_s", "number", "",
                       "its compute time per iteration (communication excluded)");
    out += fmt::format("{:<36} {:<8} default {:<10} {}\n", "models.<name>.compute_jitter_cv",
                       "number", "0", "its compute-time coefficient of variation [0..0.3]");
    out += fmt::format("{:<36} {:<8} default {:<10} {}\n", "models.<name>.backward_share", "number",
                       "0.667", "backward / (forward + backward) [0.02..0.98]");
    return out;
}

} // namespace flumen
