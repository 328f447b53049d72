#include "scenario-keys.h"

#include "key-builders.h"
#include "key-groups.h"
#include "scenario.h"

#include "ns3/collective-trees.h"
#include "ns3/model-profile.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace flumen
{

using nlohmann::json;

namespace
{

using namespace key_builders;

void
AddJobKeys(std::vector<KeySpec>& k)
{
    k.push_back(Key("job.enabled", KeyType::Boolean, true,
                    "run the training job (false: cross traffic alone for "
                    "simulation.duration_s)",
                    -1e300, 1e300, Into(&Scenario::jobEnabled)));
    k.push_back(Key("job.name", KeyType::String, "job",
                    "the job's name in iterations.csv and the summary (each of `jobs` needs its "
                    "own)",
                    -1e300, 1e300, Into(&Scenario::jobName)));
    k.push_back(Key("job.hosts", KeyType::String, "",
                    "the job's hosts, rank 0 first (\"S0,S1,S3\"); empty = the "
                    "configuration's (A: every host, B: every host but S2)",
                    -1e300, 1e300, Into(&Scenario::jobHostsText)));
    k.push_back(Key("job.start_s", KeyType::Number, 0.0,
                    "when the job's workers begin their first iteration (an offset between "
                    "jobs)",
                    0, 1e5, Into(&Scenario::jobStartS), Unit::Seconds));
    k.push_back(Key("job.model", KeyType::String, "resnet50",
                    "resnet50, densenet161, vgg16, bert-large (measured on the testbed), "
                    "resnet101, densenet201, mobilenetv2 (compute scaled from a measured "
                    "model), or a name defined under models",
                    -1e300, 1e300, Into(&Scenario::modelName)));
    k.push_back(Choice("job.transport", "tcp", { "tcp", "rdma" },
                       "transport of the ring all-reduce: tcp (NCCL's socket transport) or "
                       "rdma (RoCEv2 with DCQCN)",
                       Into(&Scenario::transport)));
    k.push_back(Key(
        "job.compute_s", KeyType::Number, 0.0,
        "total compute per iteration (forward + backward + step) overriding the model's (0 = the "
        "model's own); split as the model profile splits it",
        0, 1e5, [](Scenario& s, const json& v) { s.modelOverrides.computeS = v.get<double>(); },
        Unit::Seconds));
    k.push_back(Key("job.backward_share", KeyType::Number, 0.0,
                    "backward pass / (forward + backward) overriding the model's (0 = the "
                    "model's own): how much compute the ring all-reduce can hide behind",
                    0, 0.98,
                    [](Scenario& s, const json& v)
                    { s.modelOverrides.backwardShare = v.get<double>(); }));
    k.push_back(Key("job.batch_size", KeyType::Integer, 0,
                    "per-worker batch (0 = the model's reference batch: 64 for the CNNs, 8 for "
                    "bert-large, models.<name>.batch_size): forward and backward time scale in "
                    "proportion to it, the optimizer step does not; applied after "
                    "job.compute_s, which is at the reference batch",
                    0, 1e6,
                    [](Scenario& s, const json& v)
                    { s.modelOverrides.batchSize = v.get<uint32_t>(); }));
    k.push_back(Key("job.compute_jitter_cv", KeyType::Number, -1.0,
                    "coefficient of variation of each compute phase, overriding the model's "
                    "(-1 = the model's own)",
                    -1, 0.3,
                    [](Scenario& s, const json& v)
                    { s.modelOverrides.computeJitterCv = v.get<double>(); }));
    k.push_back(Choice("job.collective", "ring", ns3::CollectiveNames(),
                       "the all-reduce: ring (NCCL's), nccl_tree (NCCL's double binary tree), "
                       "KungFu's star, tree, binary_tree_star and clique, or parameter_server "
                       "(job.ps_servers servers on the first workers)",
                       Into(&Scenario::collective)));
    k.push_back(Key("job.ps_servers", KeyType::Integer, 1,
                    "parameter_server: servers, on the first workers, each reducing an equal "
                    "shard (at most the workers)",
                    1, 4096, Into(&Scenario::psServers)));
    k.push_back(Key("job.nccl.channels", KeyType::Integer, 1,
                    "NCCL channels: parallel rings, each with its own connections or queue "
                    "pair, each carrying 1/channels of every all-reduce",
                    1, 64, Into(&Scenario::ncclChannels)));
    k.push_back(Key("job.mltcp", KeyType::Boolean, false,
                    "MLTCP on the job's ring flows (HotNets '24): their window increase (TCP, "
                    "on tcp.congestion_control), rate increase (DCQCN) or flow-level share "
                    "scaled by F = mltcp.slope x bytes ratio of the iteration + "
                    "mltcp.intercept; cross traffic keeps its own (docs/mltcp.md)",
                    -1e300, 1e300, Into(&Scenario::mltcp)));
    k.push_back(Attr("mltcp.slope", KeyType::Number, "ns3::MltcpAggressiveness::Slope", Unit::None,
                     "MLTCP's F(bytes ratio): its slope", 0, 1e3));
    k.push_back(Attr("mltcp.intercept", KeyType::Number, "ns3::MltcpAggressiveness::Intercept",
                     Unit::None,
                     "MLTCP's F(bytes ratio): its value at the start of an "
                     "iteration's communication",
                     1e-6, 1e3));
    k.push_back(
        Attr("job.nccl.flow_control", KeyType::Boolean, "ns3::TrainingWorker::NcclFlowControl",
             Unit::None,
             "the ring as NCCL 2.7.8 runs it: loops of chunks of job.nccl.buffer_bytes / 2, "
             "two slices each, at most job.nccl.steps / 2 slices held at each end of a "
             "connection, a receive posted as a slot frees (over RoCE the sender's clear "
             "to send); false: every step a whole chunk in slices of job.nccl.slice_bytes, "
             "nothing bounds what is in flight (the model before; ns3-module/doc/flumen.md)",
             -1e300, 1e300));
    k.push_back(Attr("job.nccl.buffer_bytes", KeyType::Integer,
                     "ns3::TrainingWorker::NcclBufferBytes", Unit::Bytes,
                     "NCCL's buffer per connection and channel (NCCL_BUFFSIZE), job.nccl.steps "
                     "slots of it: what a ring connection can have in flight",
                     4096, 1e12));
    k.push_back(
        Attr("job.nccl.steps", KeyType::Integer, "ns3::TrainingWorker::NcclSteps", Unit::None,
             "FIFO slots per connection (NCCL_STEPS); a slice takes 2, a chunk 4", 4, 1024));
    k.push_back(Attr("job.nccl.slice_bytes", KeyType::Integer, "ns3::TrainingWorker::SliceBytes",
                     Unit::Bytes,
                     "slice of the collectives without NCCL's flow control (job.nccl.flow_control "
                     "false, and the reduction trees): each step is pipelined in pieces of at "
                     "most this size (0 = whole steps)",
                     0, 1e12));
    k.push_back(Attr("job.horovod.cycle_time_ms", KeyType::Number,
                     "ns3::HorovodCoordinator::CycleTime", Unit::Milliseconds,
                     "Horovod's cycle time (0.21 default: 1 ms)", 0.001, 1e5));
    k.push_back(Attr("job.horovod.fusion_threshold_bytes", KeyType::Integer,
                     "ns3::HorovodCoordinator::FusionThresholdBytes", Unit::Bytes,
                     "Horovod's fusion threshold (0.21 default: 128 MiB)", 1, 1e13));
    k.push_back(Key("job.iterations", KeyType::Integer, 10,
                    "training iterations to run, warm-up included", 1, 1e7,
                    Into(&Scenario::iterations)));
    k.push_back(Key("job.warmup_iterations", KeyType::Integer, 2,
                    "first iterations left out of the statistics (must be below "
                    "job.iterations)",
                    0, 1e7, Into(&Scenario::warmupIterations)));
    k.push_back(Attr("job.tcp.sockets_per_peer", KeyType::Integer,
                     "ns3::TcpRingTransport::SocketsPerPeer", Unit::None,
                     "TCP connections from each worker to the next (NCCL sockets)", 1, 64));
    k.push_back(Attr("job.tcp.interleave_stripes", KeyType::Boolean,
                     "ns3::TcpRingTransport::InterleaveStripes", Unit::None,
                     "a message's stripes leave its sockets side by side, as from NCCL's "
                     "threads (false: socket by socket; the shipped TCP manifests set true)",
                     0, 1));
    k.push_back(Attr("job.tcp.host_ceiling_gbps", KeyType::Number,
                     "ns3::TcpRingTransport::HostCeiling", Unit::Gbps,
                     "host-side throughput ceiling of NCCL's socket path per worker (0 = none; "
                     "the testbed's, fitted by flumen calibrate, is in "
                     "validation/calibration.json)",
                     0, 1000, Into(&Scenario::hostCeilingGbps)));
}

void
AddCrossTrafficKeys(std::vector<KeySpec>& k)
{
    k.push_back(Choice("cross_traffic.type", "none",
                       { "none", "iperf", "websearch", "burst", "replay" },
                       "cross traffic: none; iperf (long-lived TCP streams paced to "
                       "load/streams each); websearch (a new TCP connection per flow, sizes "
                       "from the web-search CDF); burst (web-search with periodic bursts); "
                       "replay (the flows of a testbed load file, cross_traffic.file)",
                       Into(&Scenario::crossType)));
    k.push_back(Key("cross_traffic.load_gbps", KeyType::Number, 0.0,
                    "offered cross-traffic load (at most the link rate)", 0, 1000,
                    Into(&Scenario::crossLoadGbps), Unit::Gbps));
    k.push_back(Key("cross_traffic.streams", KeyType::Integer, 4, "iperf parallel streams (-P)", 1,
                    64, Into(&Scenario::crossStreams)));
    k.push_back(Choice("cross_traffic.arrivals", "testbed", { "testbed", "exponential" },
                       "websearch flow start gaps: testbed = Poisson-distributed whole "
                       "microseconds (nearly periodic, as the testbed drew them); "
                       "exponential = textbook Poisson arrivals",
                       Into(&Scenario::crossArrivals)));
    k.push_back(
        Key("cross_traffic.size_block_flows", KeyType::Integer, 1000,
            "websearch and burst flow sizes in stratified blocks of this many flows: each block "
            "holds the CDF's sizes in their exact proportions, in random order, so a "
            "run of seconds offers the requested load (0: independent draws, as the "
            "testbed's generator, whose heavy tail makes a short run's load vary by "
            "+-10 %)",
            0, 1e7, Into(&Scenario::crossSizeBlockFlows)));
    k.push_back(Key("cross_traffic.size_cdf", KeyType::String, "",
                    "flow-size CDF file (`size_in_packets 1 cumulative_probability` lines, "
                    "1460-byte packets; relative to the scenario file); empty = the "
                    "testbed's web-search CDF (scenarios/websearch_cdf.txt)",
                    -1e300, 1e300, Into(&Scenario::sizeCdfFile)));
    k.push_back(Key("cross_traffic.file", KeyType::String, "",
                    "replay: testbed load file (first line N, then `start_us size_bytes "
                    "dest_index`; relative to the scenario file)",
                    -1e300, 1e300, Into(&Scenario::replayFile)));
    k.push_back(Key("cross_traffic.burst.width_us", KeyType::Integer, 1000,
                    "burst: width of the burst window", 1, 1e7, Into(&Scenario::burstWidthUs),
                    Unit::Microseconds));
    k.push_back(Key("cross_traffic.burst.period_multiple", KeyType::Integer, 10,
                    "burst: period = period_multiple x width_us", 2, 1e6,
                    Into(&Scenario::burstPeriodMultiple)));
    k.push_back(Key("cross_traffic.burst.share", KeyType::Number, 0.3,
                    "burst: fraction of each period's bytes in its two burst flows", 0, 1,
                    Into(&Scenario::burstShare)));
    k.push_back(Key("cross_traffic.burst.min_flows", KeyType::Integer, 8,
                    "burst: fewest web-search flows outside the burst (sizes scaled down "
                    "when fewer would be drawn)",
                    1, 1e6, Into(&Scenario::burstMinFlows)));
    k.push_back(Choice("cross_traffic.launch", "scheduled", { "scheduled", "windows" },
                       "when websearch, burst and replay flows start: scheduled = each at its "
                       "own start time; windows = as the testbed's client launched them, each of "
                       "its 3 threads starting the next window's flows at once every "
                       "cross_traffic.launch_window_ms (docs/testbed-data.md)",
                       Into(&Scenario::crossLaunch)));
    k.push_back(Attr("cross_traffic.launch_window_ms", KeyType::Number,
                     "ns3::WindowedLaunchSchedule::Window", Unit::Milliseconds,
                     "launch = windows: the grid the client's threads sleep to", 0.001, 1e6));
    k.push_back(Attr("cross_traffic.chunk_bytes", KeyType::Integer,
                     "ns3::FlowGenerator::ChunkBytes", Unit::Bytes,
                     "websearch, burst and replay: each flow's bytes written in chunks of this "
                     "size, with a sleep of chunk_gap_us after each (the testbed's client: "
                     "18068); 0 = as the socket takes them",
                     0, 4294967295.0));
    k.push_back(Attr("cross_traffic.chunk_gap_us", KeyType::Number, "ns3::FlowGenerator::ChunkGap",
                     Unit::Microseconds,
                     "the writer's sleep after each chunk: every flow stays below chunk_bytes / "
                     "chunk_gap_us (docs/testbed-data.md)",
                     0, 1e9));
    k.push_back(Key("cross_traffic.start_s", KeyType::Number, 0.0,
                    "when the cross traffic starts (the job at job.start_s)", 0, 1e6,
                    Into(&Scenario::crossStartS), Unit::Seconds));
    k.push_back(Key("cross_traffic.source", KeyType::String, "",
                    "the host that sends the cross traffic (\"S5\"; empty = the "
                    "configuration's: A S0, B S2); in A the bottleneck is its NIC",
                    -1e300, 1e300, Into(&Scenario::crossSourceText)));
    k.push_back(Key("cross_traffic.destination", KeyType::String, "",
                    "the host that receives it (empty = the configuration's: A S1, B S0); in B "
                    "the bottleneck is its ToR port",
                    -1e300, 1e300, Into(&Scenario::crossDestinationText)));
}

void
AddSimulationKeys(std::vector<KeySpec>& k)
{
    k.push_back(Key("simulation.max_time_s", KeyType::Number, 600.0,
                    "simulated-time limit; a job not finished by then is an error", 1e-6, 1e7,
                    Into(&Scenario::maxTimeS), Unit::Seconds));
    k.push_back(Choice("simulation.on_max_time", "error", { "error", "report" },
                       "a job unfinished at simulation.max_time_s: error (nothing written), or "
                       "report (the iterations that finished, job_finished = false and a lower "
                       "bound on the mean iteration time)",
                       [](Scenario& s, const json& v)
                       { s.reportUnfinished = v.get<std::string>() == "report"; }));
    k.push_back(Key("simulation.duration_s", KeyType::Number, 0.0,
                    "simulated time to run when job.enabled is false (0 = until the job "
                    "finishes)",
                    0, 1e7, Into(&Scenario::durationS), Unit::Seconds));
    k.push_back(Choice("simulation.engine", "packet", { "packet", "flow", "auto" },
                       "network model: packet (ns-3 packet level, the reference), flow (no "
                       "packets: links shared by weighted max-min, recomputed at flow events; "
                       "standing queues, TCP windows and DCQCN where an RDMA job meets a fifo "
                       "or ecn switch; the keys it ignores are listed in summary.json, "
                       "docs/flow-engine.md), or auto (flow, re-run at packet "
                       "level out of its domain: a FIFO bottleneck busier than "
                       "simulation.auto_max_utilization, a switch buffer that filled, a TCP "
                       "ring's ceiling beside flow traffic that fills the port; the summary's "
                       "engine_auto says which)",
                       Into(&Scenario::engine)));
    k.push_back(Key("simulation.auto_max_utilization", KeyType::Number, 0.95,
                    "engine auto: a flow-level run whose FIFO bottleneck port was busier than "
                    "this over the measurement window is re-run at packet level, as is one "
                    "whose switch queue reached its buffer (how the runs kept agree: "
                    "docs/flow-engine.md, engine auto)",
                    0, 1, Into(&Scenario::autoMaxUtilization)));
    k.push_back(Key("simulation.flow_whole_steps", KeyType::Boolean, true,
                    "flow engine, ring without NCCL's flow control (job.nccl.flow_control false): "
                    "each ring step goes as one message, job.nccl.slice_bytes ignored (same mean "
                    "iteration times within 1e-6 s on ResNet-50 and VGG-16, a tenth of the "
                    "events or fewer; docs/flow-engine.md)",
                    -1e300, 1e300, Into(&Scenario::flowWholeSteps)));
    k.push_back(Key("simulation.flow_queues", KeyType::Boolean, true,
                    "flow engine, RDMA job, switch fifo or ecn: saturated switch ports hold a "
                    "queue, RoCE served by its backlog (under DCQCN where the switch marks), "
                    "TCP by window / RTT with HyStart (docs/flow-engine.md)",
                    -1e300, 1e300, Into(&Scenario::flowQueues)));
    k.push_back(Choice("simulation.flow_ring", "auto", { "auto", "slices", "whole" },
                       "flow engine, the collective: slices (each hop's slices, as NCCL sends "
                       "them), whole (each all-reduce one flow over the whole ring at its "
                       "slowest hop's rate, two events instead of 2(n-1) x n x slices; behind "
                       "standing queues a ring of RoCE queue pairs under NCCL's flow control at "
                       "a fifo switch, with NCCL's window on every hop; a tree collective one "
                       "flow per tree over all its edges, only without standing queues; not "
                       "with job.mltcp), or auto (whole where it may run and the ring has "
                       "simulation.flow_ring_whole_from ranks or more, slices otherwise; "
                       "docs/flow-engine.md, The whole ring and the whole trees)",
                       Into(&Scenario::flowRing)));
    k.push_back(Key("simulation.flow_ring_whole_from", KeyType::Integer, 32,
                    "flow_ring auto: the fewest ranks a ring or tree runs whole with (slices cost "
                    "2(n-1) x n events per slice round: 10 s per iteration at 64 ranks, where "
                    "the whole ring takes 0.3 s and agrees within 0.01 %)",
                    2, 1e9, Into(&Scenario::flowRingWholeFrom)));
    k.push_back(Key("simulation.flow_slice_bytes", KeyType::Integer, 2097152,
                    "flow engine, behind standing queues, ring without NCCL's flow control: RoCE "
                    "ring slices at least this large (as NCCL's within 1 %, a third of the "
                    "events; docs/flow-engine.md)",
                    1, 1e12, Into(&Scenario::flowSliceBytes)));
    k.push_back(Choice("simulation.scheduler", "map",
                       { "map", "heap", "calendar", "priority_queue", "list" },
                       "ns-3 event scheduler (map was fastest here; calendar was 16x "
                       "slower with TCP's many cancelled timers)",
                       Into(&Scenario::scheduler)));
    k.push_back(Key("outputs.link_bin_us", KeyType::Number, 100.0,
                    "bin width of link.csv, a port's time series (the bottleneck's, or "
                    "outputs.link_port's; 0 = no link.csv)",
                    0, 1e9, Into(&Scenario::linkBinUs), Unit::Microseconds));
    k.push_back(Key("outputs.link_port", KeyType::String, "",
                    "the port link.csv follows instead of the bottleneck, named as summary.json "
                    "names ports: \"S2 NIC egress\" or \"ToR port towards S0\"",
                    -1e300, 1e300, Into(&Scenario::linkPortText)));
    k.push_back(Key("outputs.pcap_hosts", KeyType::String, "",
                    "hosts whose NIC link is captured as pcap, comma-separated (\"S0,S3\": "
                    "DIR/S0.pcap, DIR/S3.pcap, both directions, ns-3's tracing; packet engine "
                    "only; a 25 Gbps link writes about 3 GB per simulated second)",
                    -1e300, 1e300, Into(&Scenario::pcapHostsText)));
    k.push_back(Key("outputs.tcp_csv", KeyType::Boolean, false,
                    "tcp.csv: each web-search, burst or replayed flow's TCP window (slow "
                    "start's end, its window and cause, largest window, round trips, fast "
                    "recoveries, timeouts): ns-3's sockets, or the flow engine's window flows "
                    "behind standing queues",
                    -1e300, 1e300, Into(&Scenario::tcpCsv)));
    k.push_back(Key("outputs.comm_csv", KeyType::Boolean, false,
                    "comm.csv: each job's all-reduces on its rank 0, start and end (the "
                    "communication phases, one band per job in plots; docs/mltcp.md)",
                    -1e300, 1e300, Into(&Scenario::commCsv)));
    k.push_back(Key("simulation.progress_interval_s", KeyType::Number, 2.0,
                    "wall seconds between progress lines on stderr (0 = none)", 0, 1e6,
                    Into(&Scenario::progressIntervalS), Unit::Seconds));
}

std::vector<KeySpec>
MakeKeys()
{
    std::vector<KeySpec> k;
    k.push_back(Key("name", KeyType::String, "scenario", "label used in outputs", -1e300, 1e300,
                    Into(&Scenario::name)));
    k.push_back(Key("seed", KeyType::Integer, 1,
                    "random seed (same scenario and seed give the same result, bit for bit)", 1,
                    4294967295.0, Into(&Scenario::seed)));
    detail::AddTopologyKeys(k);
    AddJobKeys(k);
    detail::AddRdmaKeys(k);
    AddCrossTrafficKeys(k);
    detail::AddTcpKeys(k);
    AddSimulationKeys(k);
    return k;
}

std::vector<KeySpec>
MakeModelKeys()
{
    return {
        Key("parameters", KeyType::Integer, 0,
            "trainable parameters (fp32 gradients), one tensor; required unless layers_file "
            "gives them (then 0 or their sum)",
            0, 1e13),
        Key("layers_file", KeyType::String, "",
            "CSV of the layers in forward order, relative to the scenario: header "
            "'layer,parameters' or 'layer,parameters,compute', one gradient tensor per line; "
            "compute (relative forward FLOPs) shares out the backward pass, else parameters do",
            -1e300, 1e300),
        Key("compute_s", KeyType::Number, json(),
            "compute time of one iteration, communication excluded", 0, 1e5, nullptr,
            Unit::Seconds),
        Key("batch_size", KeyType::Integer, 0,
            "per-worker batch compute_s is for (0 = not stated: job.batch_size is then "
            "refused)",
            0, 1e6),
        Key("compute_jitter_cv", KeyType::Number, 0.0,
            "coefficient of variation of the compute time", 0, 0.3),
        Key("backward_share", KeyType::Number, ns3::ModelProfile::kDefaultBackwardShare,
            "backward pass / (forward + backward)", 0.02, 0.98),
    };
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

} // namespace flumen
