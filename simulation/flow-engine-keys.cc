// The scenario keys the flow engine does not model (docs/flow-engine.md, "What it does not
// have"): listed in every flow-level run's summary.json and refused as fit parameters.
#include "flow-network.h"

namespace flumen
{

const std::vector<std::string>&
FlowEngineIgnoredKeys()
{
    // Buffers, loss and congestion control: what the fluid model does not have
    // (docs/flow-engine.md). The switch's discipline, the TCP buffers, delayed ACKs, CUBIC's
    // HyStart, a FIFO host buffer's overflow (its loss decrease) and the switch's buffer (its
    // drops) do count where its standing queues apply; and where their switch ports mark (ecn), the
    // marking ramp and DCQCN.
    static const std::vector<std::string> keys = {
        "topology.host_queue (but its fifo buffer_bytes with simulation.flow_queues)",
        "topology.switch_queue.buffer_bytes (but with simulation.flow_queues)",
        "topology.switch_queue.ecn_kmin_bytes (but with simulation.flow_queues and ecn)",
        "topology.switch_queue.ecn_kmax_bytes (but with simulation.flow_queues and ecn)",
        "topology.switch_queue.ecn_pmax (but with simulation.flow_queues and ecn)",
        "topology.pfc.xon_bytes (its enabled and xoff_bytes count with simulation.flow_queues)",
        "dcqcn (but with simulation.flow_queues and topology.switch_queue.discipline ecn)",
        "job.rdma.ack_interval",
        "job.rdma.cnp_interval_us (but with simulation.flow_queues and ecn)",
        "job.rdma.nak_interval_us",
        "job.rdma.retransmit_timeout_ms",
        "job.rdma.nic_backpressure_bytes",
        "job.rdma.nic_weight",
        "job.rdma.nic_tcp_queues",
        "tcp.congestion_control (but its HyStart, loss decrease and DCTCP's answer to marks "
        "with simulation.flow_queues)",
        "tcp.snd_buf_bytes (but with simulation.flow_queues)",
        "tcp.rcv_buf_bytes (but with simulation.flow_queues)",
        "tcp.time_wait_ms",
        "tcp.min_rto_ms (but with simulation.flow_queues: iperf's timeout where a switch port "
        "drops)",
        "tcp.delayed_ack_count (but with simulation.flow_queues)",
        "tcp.delayed_ack_timeout_ms",
        "tcp.sack",
        "tcp.ecn (but with simulation.flow_queues and ecn)",
        "job.tcp.interleave_stripes",
        "job.nccl.slice_bytes (with simulation.flow_whole_steps)",
    };
    return keys;
}

} // namespace flumen
