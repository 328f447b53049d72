/*
 * The layers of the built-in models, from their architectures: each layer's trainable
 * parameters (its gradient tensor group, normalisation parameters folded into the layer
 * they belong to) and its forward FLOPs for one sample, which set how the backward pass's
 * time is shared out between layers (a layer's backward costs about twice its forward).
 */
#ifndef FLUMEN_MODEL_LAYERS_H
#define FLUMEN_MODEL_LAYERS_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

struct LayerGradient
{
    std::string name;
    uint64_t parameters = 0;
    double forwardFlops = 0; //!< 2 x multiply-accumulates, one sample, standard input size
};

/** The layers of a built-in model in forward order (input first); empty if unknown. */
std::vector<LayerGradient> BuiltInModelLayers(const std::string& model);

} // namespace ns3

#endif
