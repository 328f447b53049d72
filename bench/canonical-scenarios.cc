#include "canonical-scenarios.h"

namespace flumen
{

using nlohmann::json;

// Iterations are set high: a run lasts the fixed simulated time whatever the job does. The
// switch is the testbed's tail-drop FIFO, as in the validation manifests: under the default
// `ecn` queue, DCQCN starves the ResNet-50 ring beside web-search and the run measures a
// stalled job.
std::vector<CanonicalScenario>
CanonicalScenarios()
{
    auto job = [](const std::string& model, const std::string& transport)
    {
        return json{ { "model", model },
                     { "transport", transport },
                     { "iterations", 1000 },
                     { "warmup_iterations", 0 } };
    };
    auto Topology = [](const std::string& configuration)
    {
        return json{ { "configuration", configuration },
                     { "switch_queue", { { "discipline", "fifo" } } } };
    };
    return {
        { "resnet50-B-rdma-websearch20",
          { { "topology", Topology("B") },
            { "job", job("resnet50", "rdma") },
            { "cross_traffic", { { "type", "websearch" }, { "load_gbps", 20 } } } } },
        { "bert-large-B-tcp-websearch20",
          { { "topology", Topology("B") },
            { "job", job("bert-large", "tcp") },
            { "cross_traffic", { { "type", "websearch" }, { "load_gbps", 20 } } } } },
        { "vgg16-A-rdma-iperf15",
          { { "topology", Topology("A") },
            { "job", job("vgg16", "rdma") },
            { "cross_traffic", { { "type", "iperf" }, { "load_gbps", 15 } } } } },
    };
}

} // namespace flumen
