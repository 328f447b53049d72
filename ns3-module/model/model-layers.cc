#include "model-layers.h"

#include <cstdint>

namespace ns3
{

namespace
{

// Builds a convolutional network layer by layer, tracking the feature map's side.
class ConvNet
{
  public:
    explicit ConvNet(uint32_t side) : m_side(side) {}

    /** k x k convolution padded by k/2; `bnChannels`: channels of a BatchNorm folded in
     * (gamma and beta). */
    void Conv(const std::string& name, uint32_t in, uint32_t out, uint32_t k, uint32_t stride,
              bool bias, uint32_t bnChannels)
    {
        uint32_t outSide = (m_side + 2 * (k / 2) - k) / stride + 1;
        LayerGradient l;
        l.name = name;
        l.parameters = uint64_t(k) * k * in * out + (bias ? out : 0) + 2ULL * bnChannels;
        l.forwardFlops = 2.0 * k * k * in * out * outSide * outSide;
        m_layers.push_back(l);
        m_side = outSide;
    }

    /** k x k depthwise convolution (one filter per channel), its BatchNorm folded in. */
    void Depthwise(const std::string& name, uint32_t channels, uint32_t k, uint32_t stride)
    {
        uint32_t outSide = (m_side + 2 * (k / 2) - k) / stride + 1;
        LayerGradient l;
        l.name = name;
        l.parameters = uint64_t(k) * k * channels + 2ULL * channels;
        l.forwardFlops = 2.0 * k * k * channels * outSide * outSide;
        m_layers.push_back(l);
        m_side = outSide;
    }

    /** Fully connected layer (with bias) after flattening; `bnChannels` folded in. */
    void Linear(const std::string& name, uint64_t in, uint64_t out, uint32_t bnChannels = 0)
    {
        LayerGradient l;
        l.name = name;
        l.parameters = in * out + out + 2ULL * bnChannels;
        l.forwardFlops = 2.0 * in * out;
        m_layers.push_back(l);
    }

    /** A pooling layer that divides the side (no parameters). */
    void Pool(uint32_t factor) { m_side /= factor; }
    void PoolTo(uint32_t side) { m_side = side; }

    std::vector<LayerGradient> m_layers;
    uint32_t m_side;
};

// torchvision's bottleneck ResNets (resnet50: blocks 3, 4, 6, 3; resnet101: 3, 4, 23, 3):
// their convolutions (BatchNorm folded in) and the classifier.
std::vector<LayerGradient>
ResNet(const uint32_t (&blocks)[4])
{
    ConvNet n(224);
    n.Conv("conv1", 3, 64, 7, 2, false, 64);
    n.Pool(2); // max pool 3x3 stride 2: 112 -> 56
    uint32_t in = 64;
    for (uint32_t stage = 0; stage < 4; ++stage)
    {
        uint32_t planes = 64u << stage;
        for (uint32_t b = 0; b < blocks[stage]; ++b)
        {
            uint32_t stride = (b == 0 && stage > 0) ? 2 : 1;
            std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(b);
            uint32_t side = n.m_side;
            n.Conv(p + ".conv1", in, planes, 1, 1, false, planes);
            n.Conv(p + ".conv2", planes, planes, 3, stride, false, planes);
            n.Conv(p + ".conv3", planes, planes * 4, 1, 1, false, planes * 4);
            if (b == 0)
            {
                uint32_t after = n.m_side;
                n.m_side = side;
                n.Conv(p + ".downsample", in, planes * 4, 1, stride, false, planes * 4);
                n.m_side = after;
            }
            in = planes * 4;
        }
    }
    n.Linear("fc", 2048, 1000);
    return n.m_layers;
}

// torchvision's DenseNets: densenet161 (growth 48, 96 initial features, blocks of 6, 12, 36,
// 24 layers), densenet201 (growth 32, 64 initial features, blocks of 6, 12, 48, 32); the
// bottleneck is 4 x growth. Their BatchNorms come before their convolutions (pre-activation);
// each is folded into the convolution it feeds, the last one into the classifier.
std::vector<LayerGradient>
DenseNet(uint32_t growth, uint32_t initial, const uint32_t (&blocks)[4])
{
    ConvNet n(224);
    n.Conv("features.conv0", 3, initial, 7, 2, false, initial);
    n.Pool(2);
    const uint32_t bottleneck = 4 * growth;
    uint32_t c = initial;
    for (uint32_t b = 0; b < 4; ++b)
    {
        for (uint32_t l = 0; l < blocks[b]; ++l)
        {
            std::string p = "denseblock" + std::to_string(b + 1) + ".layer" + std::to_string(l + 1);
            n.Conv(p + ".conv1", c, bottleneck, 1, 1, false, c);
            n.Conv(p + ".conv2", bottleneck, growth, 3, 1, false, bottleneck);
            c += growth;
        }
        if (b < 3)
        {
            n.Conv("transition" + std::to_string(b + 1) + ".conv", c, c / 2, 1, 1, false, c);
            n.Pool(2);
            c /= 2;
        }
    }
    n.Linear("classifier", c, 1000, c); // with the last norm folded in
    return n.m_layers;
}

// torchvision mobilenet_v2 (width 1.0): a 3x3 stem, 17 inverted residual blocks (1x1
// expansion unless the factor is 1, 3x3 depthwise, 1x1 projection, each with its BatchNorm),
// a 1x1 convolution to 1280 channels and the classifier.
std::vector<LayerGradient>
MobileNetV2()
{
    ConvNet n(224);
    n.Conv("features.0", 3, 32, 3, 2, false, 32);
    // expansion t, output channels c, repeats, first stride
    const uint32_t settings[7][4]
        = { { 1, 16, 1, 1 }, { 6, 24, 2, 2 },  { 6, 32, 3, 2 }, { 6, 64, 4, 2 },
            { 6, 96, 3, 1 }, { 6, 160, 3, 2 }, { 6, 320, 1, 1 } };
    uint32_t in = 32;
    uint32_t block = 1;
    for (const auto& st : settings)
    {
        for (uint32_t r = 0; r < st[2]; ++r, ++block)
        {
            std::string p = "features." + std::to_string(block);
            uint32_t hidden = in * st[0];
            if (st[0] != 1)
            {
                n.Conv(p + ".expand", in, hidden, 1, 1, false, hidden);
            }
            n.Depthwise(p + ".depthwise", hidden, 3, r == 0 ? st[3] : 1);
            n.Conv(p + ".project", hidden, st[1], 1, 1, false, st[1]);
            in = st[1];
        }
    }
    n.Conv("features.18", in, 1280, 1, 1, false, 1280);
    n.PoolTo(1);
    n.Linear("classifier", 1280, 1000);
    return n.m_layers;
}

// torchvision vgg16 (no BatchNorm): 13 convolutions and 3 fully connected layers.
// torchvision's total is 138,357,544 parameters; the project's stated total (DESIGN.md, the
// thesis's figure) is 138,357,444, so fc8 carries 100 parameters fewer. The difference is
// 0.00007 %; the shift moves no release time measurably.
std::vector<LayerGradient>
Vgg16()
{
    ConvNet n(224);
    const int cfg[]
        = { 64, 64, -1, 128, 128, -1, 256, 256, 256, -1, 512, 512, 512, -1, 512, 512, 512, -1 };
    uint32_t in = 3;
    int conv = 0;
    for (int v : cfg)
    {
        if (v < 0)
        {
            n.Pool(2);
            continue;
        }
        n.Conv("conv" + std::to_string(++conv), in, static_cast<uint32_t>(v), 3, 1, true, 0);
        in = static_cast<uint32_t>(v);
    }
    n.Linear("fc6", 512ULL * 7 * 7, 4096);
    n.Linear("fc7", 4096, 4096);
    n.Linear("fc8", 4096, 1000);
    n.m_layers.back().parameters -= 100;
    return n.m_layers;
}

// BERT-large uncased (24 layers, hidden 1024, FFN 4096, vocabulary 30522, 512 positions) at
// sequence length 384 (the testbed's sequence length is not recorded), fine-tuned as a sequence
// classifier: the encoder with its pooler (335,141,888 parameters) and a two-class head
// (2,050), 335,143,938 in all. The thesis's text says "336m parameters" and its Tables 3.1 and
// 3.4 move 2011 MB per iteration over 4 workers and 1787.6 MB over 3, a ring's 2(N-1)/N of
// 4-byte gradients of 335.2 M parameters. Its Table 2.1's 366,428,986 would need a
// pre-training head (an untied 30522-word decoder), which a fine-tuning job does not train,
// and would push more than the 25 Gbps link through S0's NIC at configuration A's measured
// points (kBertLargeModelVersion).
std::vector<LayerGradient>
BertLarge()
{
    const uint64_t h = 1024, ffn = 4096, vocab = 30522, seq = 384;
    std::vector<LayerGradient> v;
    auto add = [&v](std::string name, uint64_t params, double flops) {
        v.push_back({ std::move(name), params, flops });
    };
    // Lookups: a token's worth of adds, so every layer has some backward cost.
    add("embeddings.word", vocab * h, double(seq * h));
    add("embeddings.position", 512 * h, double(seq * h));
    add("embeddings.token_type+norm", 2 * h + 2 * h, double(seq * h * 8));
    for (int l = 0; l < 24; ++l)
    {
        std::string p = "encoder." + std::to_string(l);
        const double proj = 2.0 * seq * h * h;
        add(p + ".attention.query", h * h + h, proj);
        add(p + ".attention.key", h * h + h, proj);
        // Scores and the weighted sum (2 x seq^2 x h MACs) ride with the value projection.
        add(p + ".attention.value", h * h + h, proj + 4.0 * seq * seq * h);
        add(p + ".attention.output+norm", h * h + h + 2 * h, proj);
        add(p + ".ffn.in", h * ffn + ffn, 2.0 * seq * h * ffn);
        add(p + ".ffn.out+norm", ffn * h + h + 2 * h, 2.0 * seq * h * ffn);
    }
    add("pooler", h * h + h, 2.0 * h * h);
    add("classifier", h * 2 + 2, 2.0 * h * 2);
    return v;
}

} // namespace

std::vector<LayerGradient>
BuiltInModelLayers(const std::string& model)
{
    if (model == "resnet50")
    {
        return ResNet({ 3, 4, 6, 3 });
    }
    if (model == "resnet101")
    {
        return ResNet({ 3, 4, 23, 3 });
    }
    if (model == "densenet161")
    {
        return DenseNet(48, 96, { 6, 12, 36, 24 });
    }
    if (model == "densenet201")
    {
        return DenseNet(32, 64, { 6, 12, 48, 32 });
    }
    if (model == "mobilenetv2")
    {
        return MobileNetV2();
    }
    if (model == "vgg16")
    {
        return Vgg16();
    }
    if (model == "bert-large")
    {
        return BertLarge();
    }
    return {};
}

} // namespace ns3
