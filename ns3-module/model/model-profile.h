/*
 * A DNN model as the training job sees it: its gradient tensors (sizes, and when in the
 * backward pass each is released) and the durations of its forward pass, backward pass and
 * optimizer step on one worker.
 */
#ifndef FLUMEN_MODEL_PROFILE_H
#define FLUMEN_MODEL_PROFILE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/** One gradient tensor (a layer's parameters, released together). */
struct GradientTensor
{
    uint64_t parameters = 0;
    double backwardWeight = 1.0; //!< relative backward compute of its layer (e.g. FLOPs)
};

struct ModelProfile
{
    std::string name;
    uint64_t parameters = 0;        //!< trainable parameters (gradients all-reduced)
    uint32_t bytesPerParameter = 4; //!< fp32 gradients
    double forwardSeconds = 0.0;
    double backwardSeconds = 0.0;
    double stepSeconds = 0.0;
    double computeJitterCv = 0.0; //!< coefficient of variation of each compute phase
    uint32_t referenceBatch = 0;  //!< per-worker batch the compute times are for (0: not stated)
    /** Layers in forward order (input first); empty = one tensor of all parameters. */
    std::vector<GradientTensor> layers;

    double ComputeSeconds() const { return forwardSeconds + backwardSeconds + stepSeconds; }
    /** Bytes of the gradient buffer one iteration all-reduces. */
    uint64_t GradientBytes() const { return parameters * bytesPerParameter; }
    /** Bytes one worker sends per ring all-reduce with n workers: 2(n-1)/n x buffer. */
    double RingBytesPerWorker(uint32_t n) const;

    /** Tensor sizes in bytes in release order (last layer first). */
    std::vector<uint64_t> ReleaseBytes() const;
    /**
     * When each tensor (release order) is ready, as a fraction of the backward pass: a
     * layer's gradient is ready when the backward pass has done its layer and every layer
     * after it, each taking time in proportion to its backward weight.
     */
    std::vector<double> ReleaseFractions() const;

    /** The default backward share: a backward pass costs about twice the forward's FLOPs. */
    static constexpr double kDefaultBackwardShare = 2.0 / 3.0;
    /** backward / (forward + backward); the default share while no compute time is set. */
    double BackwardShare() const;
    /**
     * Splits a total compute time the way the built-in profiles do: the optimizer step is a
     * memory-bound pass over the parameters (StepSecondsFor), the rest is split into forward
     * and backward by the backward share. The share decides how much of the ring all-reduce
     * can hide behind the backward pass; calibration fits it where a model was measured with
     * two worker counts.
     */
    void SetComputeSeconds(double total, double backwardShare);
    /** Same, keeping the current backward share. */
    void SetComputeSeconds(double total) { SetComputeSeconds(total, BackwardShare()); }
    /**
     * Rescales the compute times to another per-worker batch: forward and backward scale in
     * proportion to the batch (a GPU busy at the reference batch takes twice as long for
     * twice the samples), the optimizer step does not (it passes over the parameters once per
     * iteration whatever the batch). Approximate below the batch that fills the GPU, where
     * time falls less than in proportion. Needs referenceBatch.
     */
    void ScaleToBatch(uint32_t batch);
    /** SGD-with-momentum step time: 5 passes over 4-byte parameters at 1.2 TB/s (A100). */
    static double StepSecondsFor(uint64_t parameters);

    /**
     * The built-in profiles: resnet50, densenet161, vgg16, bert-large (measured on the
     * testbed), resnet101, densenet201, mobilenetv2 (compute scaled from a measured model).
     */
    static std::optional<ModelProfile> BuiltIn(const std::string& name);
    static std::vector<std::string> BuiltInNames();
};

} // namespace ns3

#endif
