/*
 * A DNN model as the training job sees it: how many fp32 gradients it all-reduces per
 * iteration and how long one iteration's computation takes on one worker.
 */
#ifndef FLUMEN_MODEL_PROFILE_H
#define FLUMEN_MODEL_PROFILE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

struct ModelProfile
{
    std::string name;
    uint64_t parameters = 0;        //!< trainable parameters (gradients all-reduced)
    uint32_t bytesPerParameter = 4; //!< fp32 gradients
    double computeSeconds = 0.0;    //!< one iteration's forward+backward+step, no communication
    double computeJitterCv = 0.0;   //!< coefficient of variation of the compute time

    /** Bytes of the gradient buffer one all-reduce reduces. */
    uint64_t GradientBytes() const { return parameters * bytesPerParameter; }

    /** Bytes one worker sends per ring all-reduce with n workers: 2(n-1)/n x buffer. */
    double RingBytesPerWorker(uint32_t n) const;

    /**
     * The built-in profiles: resnet50, densenet161, vgg16, bert-large.
     * Compute times are provisional: each is the testbed's measured no-cross-traffic
     * iteration time (RDMA, 4 workers) minus the time to send the ring's bytes at 25 Gbps,
     * i.e. communication assumed not overlapped. The calibration issue replaces them.
     */
    static std::optional<ModelProfile> BuiltIn(const std::string& name);
    static std::vector<std::string> BuiltInNames();
};

} // namespace ns3

#endif
