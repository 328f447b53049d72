// Layers files (a user model's per-layer parameters): a hand-written file, the shipped GPT-2
// example, and every kind of bad line named by its number.
#include "layers-file.h"
#include "test-support.h"

#include <gtest/gtest.h>

using namespace flumen;

namespace
{

std::string
ErrorOf(const std::string& text)
{
    try
    {
        ParseLayersFile(text, "bad.csv");
    }
    catch (const LayersFileError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(LayersFile, HandWrittenFileWithCommentsAndCrlf)
{
    auto layers
        = ParseLayersFile("# a comment\r\nlayer,parameters,compute\r\n\r\nconv1, 864, 1e6\r\n"
                          "fc,1001,2002\n",
                          "hand.csv");
    ASSERT_EQ(layers.size(), 2u);
    EXPECT_EQ(layers[0].name, "conv1");
    EXPECT_EQ(layers[0].parameters, 864u);
    EXPECT_DOUBLE_EQ(layers[0].compute, 1e6);
    EXPECT_EQ(layers[1].name, "fc");
    EXPECT_DOUBLE_EQ(layers[1].compute, 2002);
}

TEST(LayersFile, WithoutComputeALayerWeighsItsParameters)
{
    auto layers = ParseLayersFile("layer,parameters\na,10\nb,30\n", "p.csv");
    ASSERT_EQ(layers.size(), 2u);
    EXPECT_DOUBLE_EQ(layers[0].compute, 10);
    EXPECT_DOUBLE_EQ(layers[1].compute, 30);
}

TEST(LayersFile, ShippedGpt2SmallHasItsPublishedParameterCount)
{
    auto layers = ReadLayersFile(FLUMEN_SOURCE_DIR "/scenarios/models/gpt2-small.csv");
    uint64_t total = 0;
    for (const auto& l : layers)
    {
        total += l.parameters;
    }
    EXPECT_EQ(layers.size(), 2u + 12 * 6 + 1);
    EXPECT_EQ(total, 124439808u); // Hugging Face gpt2's num_parameters()
}

TEST(LayersFile, BadLinesAreNamedByNumber)
{
    EXPECT_NE(ErrorOf("").find("bad.csv:1: expected the header"), std::string::npos);
    EXPECT_NE(ErrorOf("name,params\n").find("bad.csv:1: expected the header"), std::string::npos);
    EXPECT_NE(ErrorOf("layer,parameters\na,1,2\n").find("bad.csv:2: expected 2 comma-separated"),
              std::string::npos);
    EXPECT_NE(ErrorOf("layer,parameters\n,5\n").find("bad.csv:2: layer: expected a name"),
              std::string::npos);
    EXPECT_NE(
        ErrorOf("layer,parameters\na,-5\n").find("bad.csv:2: parameters: expected an integer"),
        std::string::npos);
    EXPECT_NE(ErrorOf("layer,parameters\na,1.5\n").find("bad.csv:2: parameters"),
              std::string::npos);
    EXPECT_NE(ErrorOf("layer,parameters\na,99999999999999999999\n").find("bad.csv:2: parameters"),
              std::string::npos);
    EXPECT_NE(ErrorOf("layer,parameters,compute\na,5,nan\n").find("bad.csv:2: compute"),
              std::string::npos);
    EXPECT_NE(ErrorOf("layer,parameters,compute\na,5,-1\n").find("bad.csv:2: compute"),
              std::string::npos);
    EXPECT_NE(ErrorOf("layer,parameters,compute\na,5,0\n").find("positive total"),
              std::string::npos);
    EXPECT_NE(ErrorOf("layer,parameters\na,0\n").find("at least one parameter"), std::string::npos);
    EXPECT_NE(ErrorOf("# only a comment\n").find("got the end of the file"), std::string::npos);
}

TEST(LayersFile, MissingFileIsNamed)
{
    try
    {
        ReadLayersFile("/nonexistent/layers.csv");
        FAIL() << "expected an error";
    }
    catch (const LayersFileError& e)
    {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/layers.csv: cannot open"),
                  std::string::npos);
    }
}
