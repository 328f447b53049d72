/*
 * A training job (Horovod over NCCL's ring) over TCP or RDMA on the testbed's rack, with
 * iperf cross traffic into the bottleneck. Copy this to start your own program.
 *
 *   build/ns3-module/examples/ring-allreduce-star --configuration=B --model=resnet50 \
 *       --transport=rdma --iperfGbps=20 --iterations=4
 */
#include "ns3/core-module.h"
#include "ns3/iperf-helper.h"
#include "ns3/model-profile.h"
#include "ns3/queue-monitor.h"
#include "ns3/star-topology-helper.h"
#include "ns3/training-job-helper.h"

#include <iostream>

using namespace ns3;

static void
StopNow()
{
    Simulator::Stop();
}

int
main(int argc, char* argv[])
{
    std::string configuration = "B";
    std::string model = "resnet50";
    double iperfGbps = 20.0;
    uint32_t streams = 4;
    uint32_t iterations = 4;
    uint32_t sockets = 2;
    uint32_t bufBytes = 1 << 20;
    std::string transport = "tcp";

    CommandLine cmd(__FILE__);
    cmd.AddValue("configuration", "A (bottleneck at S0's NIC) or B (at the ToR port to S0)",
                 configuration);
    cmd.AddValue("model", "resnet50, densenet161, vgg16 or bert-large", model);
    cmd.AddValue("iperfGbps", "iperf cross traffic (0 = none)", iperfGbps);
    cmd.AddValue("streams", "iperf parallel streams (-P)", streams);
    cmd.AddValue("iterations", "training iterations", iterations);
    cmd.AddValue("transport", "tcp (NCCL sockets) or rdma (RoCEv2 with DCQCN)", transport);
    cmd.AddValue("sockets", "TCP connections per ring neighbour", sockets);
    cmd.AddValue("bufBytes", "TCP send and receive buffer (bytes)", bufBytes);
    cmd.Parse(argc, argv);

    auto profile = ModelProfile::BuiltIn(model);
    if (!profile || (configuration != "A" && configuration != "B")
        || (transport != "tcp" && transport != "rdma"))
    {
        std::cerr << "unknown model, configuration or transport\n";
        return 2;
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(bufBytes));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(bufBytes));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    // ns-3.37's SACK recovery can stall a connection after a lost retransmission (see the
    // tcp.sack scenario key); flumen recovers on cumulative ACKs instead.
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));

    StarTopologyConfig topo;
    topo.configuration = configuration[0];
    // RDMA needs NICs that arbitrate RoCE and TCP/IP, and switch ports that ECN-mark RoCE.
    topo.rdmaNic = transport == "rdma";
    topo.switchQueue.discipline = "ecn";
    StarTopology t = StarTopologyHelper(topo).Install();

    NodeContainer jobNodes;
    std::vector<Ipv4Address> jobAddresses;
    for (uint32_t h : t.jobHosts)
    {
        jobNodes.Add(t.hosts.Get(h));
        jobAddresses.push_back(t.hostAddresses[h]);
    }
    TrainingJobHelper jobHelper;
    jobHelper.SetModel(*profile);
    jobHelper.SetIterations(iterations);
    if (transport == "rdma")
    {
        jobHelper.SetTransport("ns3::RdmaRingTransport");
    }
    else
    {
        jobHelper.SetTransportAttribute("SocketsPerPeer", UintegerValue(sockets));
    }
    TrainingJob job = jobHelper.Install(jobNodes, jobAddresses);
    TrainingJobHelper::AssignStreams(job, 1);
    job.recorder->SetAllFinishedCallback(MakeCallback(&StopNow));

    if (iperfGbps > 0)
    {
        IperfHelper iperf(DataRate(iperfGbps * 1e9), streams);
        iperf.Install(t.hosts.Get(t.crossSource), t.hosts.Get(t.crossDestination),
                      t.hostAddresses[t.crossDestination], Seconds(0), Seconds(1000));
    }
    Ptr<QueueMonitor> monitor = CreateObject<QueueMonitor>();
    monitor->Attach(t.GetBottleneckQueueDisc(), t.GetBottleneckDevice(), topo.linkRate);

    Simulator::Stop(Seconds(100));
    Simulator::Run();
    for (const auto& r : job.recorder->GetRecords())
    {
        std::cout << "iteration " << r.iteration << " rank " << r.rank << ": "
                  << (r.end - r.start).GetSeconds() << " s (waiting for communication "
                  << r.Waiting().GetSeconds() << " s)\n";
    }
    std::cout << t.GetBottleneckName() << ": utilization " << monitor->GetUtilization()
              << ", drops " << monitor->GetDrops() << ", max queue " << monitor->GetMaxQueueBytes()
              << " B\n";
    Simulator::Destroy();
    return 0;
}
