// The topology's scenario keys (topology.*): hosts, links, the leaf-spine fabric, the host and
// switch queues, random loss and PFC.
#include "key-builders.h"
#include "key-groups.h"
#include "scenario.h"

#include "ns3/star-topology-helper.h"

#include <string>

namespace flumen::detail
{

using nlohmann::json;
using namespace key_builders;

namespace
{

// ns-3's QueueSize and the queue discs count bytes in 32 bits: larger buffers are refused
// here instead of wrapping where they are used.
constexpr double kMaxQueueBytes = 4294967295.0;

using Egress = ns3::EgressQueueConfig Scenario::*;

void
AddQueueKeys(std::vector<KeySpec>& keys, const std::string& prefix, const std::string& where,
             Egress queue, const ns3::EgressQueueConfig& def)
{
    auto field = [queue](auto member)
    {
        return [queue, member](Scenario& s, const json& v)
        { (s.*queue).*member = v.get<std::remove_reference_t<decltype((s.*queue).*member)>>(); };
    };
    using Q = ns3::EgressQueueConfig;
    keys.push_back(
        Choice(prefix + ".discipline", def.discipline, { "fifo", "red", "ecn" },
               where
                   + " queue: fifo (tail drop); ecn (DCQCN-style marking of ECN-capable packets "
                     "on the instantaneous queue, Kmin..Kmax up to Pmax, all above Kmax; others "
                     "only tail-dropped); red (ns-3's RED with the same ramp, early-drops non-ECN "
                     "packets)",
               field(&Q::discipline)));
    keys.push_back(Key(prefix + ".buffer_bytes", KeyType::Integer, def.bufferBytes,
                       where + " buffer (tail drop above it)", 3000, kMaxQueueBytes,
                       field(&Q::bufferBytes), Unit::Bytes));
    keys.push_back(Key(prefix + ".ecn_kmin_bytes", KeyType::Integer, def.ecnKminBytes,
                       "red, ecn: queue length where marking starts", 0, kMaxQueueBytes,
                       field(&Q::ecnKminBytes), Unit::Bytes));
    keys.push_back(Key(prefix + ".ecn_kmax_bytes", KeyType::Integer, def.ecnKmaxBytes,
                       "red, ecn: queue length where marking reaches ecn_pmax (all marked above)",
                       1, kMaxQueueBytes, field(&Q::ecnKmaxBytes), Unit::Bytes));
    keys.push_back(Key(prefix + ".ecn_pmax", KeyType::Number, def.ecnPmax,
                       "red, ecn: marking probability at ecn_kmax_bytes", 1e-6, 1.0,
                       field(&Q::ecnPmax)));
}

} // namespace

void
AddTopologyKeys(std::vector<KeySpec>& k)
{
    k.push_back(Choice("topology.configuration", "B", { "A", "B" },
                       "A: job on every host (S0..S3), cross traffic leaves S0 for S1 (S0's NIC "
                       "is the bottleneck); B: job on every host but S2 (S0,S1,S3), S2 sends "
                       "to S0 (the ToR port towards S0 is the bottleneck)",
                       [](Scenario& s, const json& v)
                       { s.configuration = v.get<std::string>()[0]; }));
    k.push_back(Key("topology.hosts", KeyType::Integer, 4,
                    "hosts on the ToR, S0..S(n-1): configuration A runs the job on all of them, "
                    "B on all but S2",
                    4, 4096, Into(&Scenario::hosts)));
    k.push_back(Key("topology.link_rate_gbps", KeyType::Number, 25.0,
                    "rate of every host link (and of the uplinks, unless set apart)", 0.001, 1000,
                    Into(&Scenario::linkRateGbps), Unit::Gbps));
    k.push_back(Key("topology.host_receive_gbps", KeyType::Number, 0.0,
                    "rate at which every host takes frames off its link, so that the switch "
                    "port towards it sends no faster (a receive path slower than the wire, "
                    "holding the switch back as PAUSE frames would; docs/fidelity.md, \"The "
                    "receiving port in B\"); 0: the link rate",
                    0, 1000, Into(&Scenario::hostReceiveGbps), Unit::Gbps));
    k.push_back(Key("topology.leaves", KeyType::Integer, 1,
                    "ToR switches the hosts split over, in order (1: the star; 2 or more: a "
                    "leaf-spine fabric, every leaf linked to every spine, ECMP by flow hash)",
                    1, 256, Into(&Scenario::leaves)));
    k.push_back(Key("topology.spines", KeyType::Integer, 2, "leaf-spine: spine switches", 1, 256,
                    Into(&Scenario::spines)));
    k.push_back(Key("topology.uplink_rate_gbps", KeyType::Number, 0.0,
                    "leaf-spine: rate of every leaf-spine link (0 = from "
                    "topology.oversubscription)",
                    0, 1000, Into(&Scenario::uplinkRateGbps), Unit::Gbps));
    k.push_back(Key("topology.oversubscription", KeyType::Number, 1.0,
                    "leaf-spine with uplink_rate_gbps 0: a leaf's host capacity over its uplink "
                    "capacity (the uplink rate is hosts per leaf x link_rate_gbps / (spines x "
                    "this))",
                    0.01, 1000, Into(&Scenario::oversubscription)));
    k.push_back(Key("topology.link_delay_us", KeyType::Number, 1.0,
                    "propagation delay of every link", 0, 1e6, Into(&Scenario::linkDelayUs),
                    Unit::Microseconds));
    k.push_back(Key("topology.mtu_bytes", KeyType::Integer, 1500, "IP MTU of every link", 576, 9216,
                    Into(&Scenario::mtuBytes), Unit::Bytes));
    k.push_back(Key("topology.ethernet_framing", KeyType::Boolean, false,
                    "every frame also takes Ethernet's preamble, MAC header, FCS and interframe "
                    "gap on the wire (36 bytes beyond the links' PPP header): TCP's payload at "
                    "25 Gbps 23.54 Gbps instead of 24.10; off: the model as validated so far "
                    "(docs/fidelity.md, Ethernet's framing)",
                    -1e300, 1e300, Into(&Scenario::ethernetFraming)));
    // The queue defaults are the topology helper's (StarTopologyConfig), declared there once.
    const ns3::StarTopologyConfig topology;
    AddQueueKeys(k, "topology.host_queue",
                 "every host NIC's egress (with job.transport rdma the NIC arbitrates RDMA and "
                 "TCP/IP round robin instead, this buffer for TCP/IP)",
                 &Scenario::hostQueue, topology.hostQueue);
    AddQueueKeys(k, "topology.switch_queue", "every ToR port's egress", &Scenario::switchQueue,
                 topology.switchQueue);
    k.push_back(Key("topology.loss.percent", KeyType::Number, 0.0,
                    "random packet loss on the lossy links, each direction, each packet "
                    "independently (the measurement framework's netem settings: 0 to 2 %); packet "
                    "engine",
                    0, 50, Into(&Scenario::lossPercent)));
    k.push_back(Key("topology.loss.hosts", KeyType::String, "",
                    "hosts whose link (both directions) loses packets, comma-separated (\"S0,S2\"; "
                    "\"\" = every link)",
                    -1e300, 1e300, Into(&Scenario::lossHostsText)));
    k.push_back(Key("topology.pfc.enabled", KeyType::Boolean, false,
                    "priority flow control for RoCE at the ToR (needs job.transport rdma)", -1e300,
                    1e300, Into(&Scenario::pfcEnabled)));
    k.push_back(Attr("topology.pfc.xoff_bytes", KeyType::Integer, "ns3::PfcController::XoffBytes",
                     Unit::Bytes,
                     "PFC: pause a host when its RoCE bytes buffered in the ToR exceed this", 1500,
                     kMaxQueueBytes));
    k.push_back(Attr("topology.pfc.xon_bytes", KeyType::Integer, "ns3::PfcController::XonBytes",
                     Unit::Bytes, "PFC: resume it at or below this", 0, kMaxQueueBytes));
}

} // namespace flumen::detail
