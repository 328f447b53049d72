// The transports' scenario keys: RoCE and its DCQCN rate control (job.rdma.*, dcqcn.*), and
// every host's TCP (tcp.*).
#include "key-builders.h"
#include "key-groups.h"
#include "scenario.h"

#include <string>

namespace flumen::detail
{

using nlohmann::json;
using namespace key_builders;

void
AddRdmaKeys(std::vector<KeySpec>& k)
{
    const Unit us = Unit::Microseconds;
    k.push_back(Attr("job.rdma.mtu_bytes", KeyType::Integer, "ns3::RdmaRingTransport::Mtu",
                     Unit::Bytes, "RoCE MTU (payload per packet; 1024 fits a 1500-byte IP MTU)", 64,
                     4096, Into(&Scenario::rdmaMtuBytes)));
    k.push_back(Attr("job.rdma.ack_interval", KeyType::Integer,
                     "ns3::RdmaRingTransport::AckInterval", Unit::None,
                     "receiver ACKs every this many packets and each message's last", 1, 1e6));
    k.push_back(Attr("job.rdma.cnp_interval_us", KeyType::Number,
                     "ns3::RdmaRingTransport::CnpInterval", us,
                     "at most one CNP per queue pair per this interval", 0, 1e6));
    k.push_back(Attr("job.rdma.nak_interval_us", KeyType::Number,
                     "ns3::RdmaRingTransport::NakInterval", us,
                     "an open sequence gap is NAKed again after this long", 0, 1e7));
    k.push_back(Attr("job.rdma.retransmit_timeout_ms", KeyType::Number,
                     "ns3::RdmaRingTransport::RetransmitTimeout", Unit::Milliseconds,
                     "go-back-N timeout for lost tails (NCCL_IB_TIMEOUT 14: 4.096 us x 2^14)",
                     0.001, 1e6));
    k.push_back(Attr("job.rdma.nic_backpressure_bytes", KeyType::Integer,
                     "ns3::RdmaNic::BackpressureBytes", Unit::Bytes,
                     "the NIC takes a queue pair's next packet only while less RDMA data than "
                     "this waits in its egress",
                     1, 1e9));
    k.push_back(Attr("job.rdma.nic_weight", KeyType::Number, "ns3::NicQueueDisc::RdmaWeight",
                     Unit::None,
                     "RDMA's round-robin quantum in a NIC shared with TCP/IP, relative to each "
                     "TCP/IP send queue's (1 = byte-fair)",
                     0.01, 100));
    k.push_back(Attr("job.rdma.nic_tcp_queues", KeyType::Integer, "ns3::NicQueueDisc::HostTxQueues",
                     Unit::None,
                     "TCP/IP send queues the NIC serves round robin beside RDMA (one per CPU "
                     "channel: 32 on the testbed's 32-core hosts); TCP/IP flows take them in "
                     "order of appearance, so k busy flows beside RDMA get k/(k+1) of the link "
                     "(1 = all TCP/IP shares one queue: byte-fair against RDMA)",
                     1, 1024));
    const std::string d = "ns3::DcqcnRateControl::";
    k.push_back(Attr("dcqcn.alpha_gain", KeyType::Number, d + "AlphaGain", Unit::None,
                     "DCQCN g: weight of the newest period in alpha", 1e-9, 1));
    k.push_back(Attr("dcqcn.alpha_update_us", KeyType::Number, d + "AlphaUpdateInterval", us,
                     "DCQCN K: alpha decays once per such period without CNP", 0.001, 1e6));
    k.push_back(Attr("dcqcn.rate_increase_us", KeyType::Number, d + "RateIncreaseInterval", us,
                     "DCQCN T: rate-increase timer (ConnectX rpg_time_reset)", 0.001, 1e6));
    k.push_back(Attr("dcqcn.byte_counter_bytes", KeyType::Integer, d + "ByteCounter", Unit::Bytes,
                     "DCQCN B: bytes per byte-counter stage (ConnectX rpg_byte_reset 32767 x 64)",
                     1, 1e12));
    k.push_back(Attr("dcqcn.fast_recovery_steps", KeyType::Integer, d + "FastRecoverySteps",
                     Unit::None, "DCQCN F: fast-recovery stages (ConnectX rpg_threshold)", 0,
                     1000));
    k.push_back(Attr("dcqcn.ai_mbps", KeyType::Number, d + "AdditiveIncrease", Unit::Mbps,
                     "DCQCN additive increase step (ConnectX rpg_ai_rate)", 0, 1e6));
    k.push_back(Attr("dcqcn.hai_mbps", KeyType::Number, d + "HyperIncrease", Unit::Mbps,
                     "DCQCN hyper increase step (ConnectX rpg_hai_rate)", 0, 1e6));
    k.push_back(Attr("dcqcn.min_rate_mbps", KeyType::Number, d + "MinRate", Unit::Mbps,
                     "DCQCN minimum rate (ConnectX rpg_min_rate)", 0.001, 1e6));
    k.push_back(Attr("dcqcn.clamp_target_rate", KeyType::Boolean, d + "ClampTargetRate", Unit::None,
                     "every cut sets the target rate to the current rate (ConnectX "
                     "clamp_tgt_rate; off: only if the rate rose since the previous cut)",
                     -1e300, 1e300));
    k.push_back(Attr("dcqcn.min_decrease_factor", KeyType::Number, d + "MinDecreaseFactor",
                     Unit::None,
                     "one cut keeps at least this fraction of the rate (rpg_min_dec_fac)", 0, 1));
}

void
AddTcpKeys(std::vector<KeySpec>& k)
{
    const Unit ms = Unit::Milliseconds;
    k.push_back(Choice("tcp.congestion_control", "cubic", { "cubic", "newreno", "dctcp" },
                       "TCP congestion control of every host",
                       Into(&Scenario::tcpCongestionControl)));
    k.push_back(Ns3Attr("tcp.snd_buf_bytes", KeyType::Integer, 1048576,
                        "ns3::TcpSocket::SndBufSize", Unit::Bytes, "TCP send buffer per socket",
                        4096, 1e9));
    k.push_back(Ns3Attr("tcp.rcv_buf_bytes", KeyType::Integer, 1048576,
                        "ns3::TcpSocket::RcvBufSize", Unit::Bytes,
                        "TCP receive buffer per socket (bounds the window; ns-3 has no "
                        "autotuning)",
                        4096, 1e9));
    // Applied as half of it, ns3::TcpSocketBase::MaxSegLifetime, by the simulation's TCP setup.
    k.push_back(Key("tcp.time_wait_ms", KeyType::Number, 1.0,
                    "TIME_WAIT of closed connections (2 x MSL). ns-3 holds the local port "
                    "for all of it and has 16k ephemeral ports; Linux reuses TIME_WAIT "
                    "ports for new outgoing connections, so a short TIME_WAIT stands in",
                    0.001, 240000, Into(&Scenario::tcpTimeWaitMs), ms));
    k.push_back(Ns3Attr("tcp.min_rto_ms", KeyType::Number, 200.0, "ns3::TcpSocketBase::MinRto", ms,
                        "minimum retransmission timeout (Linux: 200 ms)", 0.001, 1e6));
    k.push_back(Ns3Attr("tcp.delayed_ack_count", KeyType::Integer, 2, "ns3::TcpSocket::DelAckCount",
                        Unit::None, "segments per delayed ACK", 1, 64));
    // ns-3's default is 200 ms (Linux's ceiling, TCP_DELACK_MAX). Linux starts from 40 ms
    // (TCP_DELACK_MIN, TCP_ATO_MIN) and ACKs at once after out-of-order data. With 200 ms a
    // connection back from a timeout at one segment of window waited 200 ms per ACK: a
    // TCP ring under 20 Gbps iperf stalled for 0.5 s and more.
    k.push_back(Ns3Attr("tcp.delayed_ack_timeout_ms", KeyType::Number, 40.0,
                        "ns3::TcpSocket::DelAckTimeout", ms,
                        "delayed-ACK timer (Linux: 40 ms at least, TCP_DELACK_MIN)", 0.001, 1e6));
    // ns-3.37's SACK scoreboard stalls a connection after a lost retransmission: it
    // overestimates bytes in flight and sends one segment per RTO (seen on the quickstart:
    // with SACK, no ResNet-50 iteration finished in 1.8 s; without, 0.29 s each). So the
    // default is NewReno-style recovery on cumulative ACKs, an approximation of Linux.
    k.push_back(Ns3Attr("tcp.sack", KeyType::Boolean, false, "ns3::TcpSocketBase::Sack", Unit::None,
                        "TCP selective acknowledgements (Linux: on; off by default here because "
                        "ns-3.37's SACK recovery stalls after a lost retransmission)",
                        -1e300, 1e300));
    // ns-3 builds an Object (ObjectFactory, attribute lookups) for every TCP option it parses,
    // three times per received segment: with timestamps that is 8-9 % of a TCP scenario's
    // time. Off, segments carry no options and the MSS grows by the option's 12 bytes, so
    // full segments keep their wire size. A speed option, not Linux's behaviour.
    k.push_back(Ns3Attr("tcp.timestamps", KeyType::Boolean, true, "ns3::TcpSocketBase::Timestamp",
                        Unit::None,
                        "TCP timestamp option (Linux: on). Off runs TCP scenarios faster; the "
                        "MSS then grows by 12 bytes so full segments keep the MTU's wire size",
                        -1e300, 1e300, Into(&Scenario::tcpTimestamps)));
    // Applied with tcp.congestion_control (dctcp needs ECN) by the simulation's TCP setup.
    k.push_back(Key("tcp.ecn", KeyType::Boolean, false,
                    "TCP negotiates ECN (Linux default: only when asked, so off)", -1e300, 1e300,
                    Into(&Scenario::tcpEcn)));
}

} // namespace flumen::detail
