// The built-in models: their layers add up to the published parameter counts, the models the
// testbed did not measure take their compute from a measured one by FLOPs, and the batch rule.
#include "ns3/model-layers.h"
#include "ns3/model-profile.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

double
Flops(const std::string& model)
{
    double total = 0;
    for (const auto& l : BuiltInModelLayers(model))
    {
        total += l.forwardFlops;
    }
    return total;
}

} // namespace

TEST(ModelProfile, LayersAddUpToThePublishedParameterCounts)
{
    // torchvision's counts (sum of p.numel() over model.parameters()); VGG-16 as the thesis
    // states it (Table 2.1); BERT-large as Hugging Face's BertForSequenceClassification with two
    // labels counts it (the thesis's per-iteration data, see model-layers.cc).
    const std::pair<const char*, uint64_t> published[] = {
        { "resnet50", 25557032 },    { "resnet101", 44549160 },  { "densenet161", 28681000 },
        { "densenet201", 20013928 }, { "mobilenetv2", 3504872 }, { "vgg16", 138357444 },
        { "bert-large", 335143938 },
    };
    for (const auto& [name, count] : published)
    {
        auto p = ModelProfile::BuiltIn(name);
        ASSERT_TRUE(p) << name;
        EXPECT_EQ(p->parameters, count) << name;
        uint64_t sum = 0;
        for (uint64_t b : p->ReleaseBytes())
        {
            sum += b;
        }
        EXPECT_EQ(sum, 4 * count) << name;
    }
    EXPECT_EQ(ModelProfile::BuiltInNames().size(), std::size(published));
}

TEST(ModelProfile, LayerCountsFollowTheArchitectures)
{
    EXPECT_EQ(BuiltInModelLayers("resnet101").size(), 105u);   // 104 convolutions + fc
    EXPECT_EQ(BuiltInModelLayers("densenet201").size(), 201u); // 200 convolutions + classifier
    EXPECT_EQ(BuiltInModelLayers("mobilenetv2").size(), 53u);  // 52 convolutions + classifier
    // Three embeddings, 6 tensors in each of 24 layers, the pooler and the classifier.
    EXPECT_EQ(BuiltInModelLayers("bert-large").size(), 149u);
    // Forward GMACs of one 224 x 224 image as commonly published: ResNet-101 7.8, DenseNet-201
    // 4.3, MobileNetV2 0.30; FLOPs here are 2 x MACs (convolutions and fc only).
    EXPECT_NEAR(Flops("resnet101") / 2e9, 7.8, 0.15);
    EXPECT_NEAR(Flops("densenet201") / 2e9, 4.3, 0.15);
    EXPECT_NEAR(Flops("mobilenetv2") / 2e9, 0.30, 0.02);
}

TEST(ModelProfile, UnmeasuredModelsScaleAMeasuredOnesComputeByFlops)
{
    const std::pair<const char*, const char*> derived[] = { { "resnet101", "resnet50" },
                                                            { "densenet201", "densenet161" },
                                                            { "mobilenetv2", "resnet50" } };
    for (const auto& [name, from] : derived)
    {
        auto p = *ModelProfile::BuiltIn(name);
        auto m = *ModelProfile::BuiltIn(from);
        EXPECT_NEAR(p.ComputeSeconds() / m.ComputeSeconds(), Flops(name) / Flops(from), 1e-9)
            << name;
        EXPECT_DOUBLE_EQ(p.BackwardShare(), m.BackwardShare()) << name;
        EXPECT_DOUBLE_EQ(p.computeJitterCv, m.computeJitterCv) << name;
        EXPECT_EQ(p.referenceBatch, 64u) << name;
    }
    EXPECT_EQ(ModelProfile::BuiltIn("bert-large")->referenceBatch, 8u);
}

TEST(ModelProfile, BatchScalesForwardAndBackwardNotTheStep)
{
    auto p = *ModelProfile::BuiltIn("resnet50");
    auto big = p;
    big.ScaleToBatch(128);
    EXPECT_DOUBLE_EQ(big.forwardSeconds, 2 * p.forwardSeconds);
    EXPECT_DOUBLE_EQ(big.backwardSeconds, 2 * p.backwardSeconds);
    EXPECT_DOUBLE_EQ(big.stepSeconds, p.stepSeconds);
    EXPECT_EQ(big.referenceBatch, 128u);
    EXPECT_DOUBLE_EQ(big.BackwardShare(), p.BackwardShare());
    auto small = p;
    small.ScaleToBatch(16);
    EXPECT_DOUBLE_EQ(small.forwardSeconds, p.forwardSeconds / 4);
}
