#include "stratified-uniform.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

void
StratifiedUniform::SetBlock(uint32_t block)
{
    m_block = block;
    m_slices.clear();
    m_next = 0;
}

double
StratifiedUniform::Next(Ptr<UniformRandomVariable> uniform)
{
    if (m_block <= 1)
    {
        return uniform->GetValue();
    }
    if (m_next == m_slices.size())
    {
        // A new block: its slices in a random order (Fisher-Yates).
        m_slices.resize(m_block);
        for (uint32_t i = 0; i < m_block; ++i)
        {
            m_slices[i] = i;
        }
        for (uint32_t i = m_block - 1; i > 0; --i)
        {
            auto j = static_cast<uint32_t>(uniform->GetValue() * (i + 1));
            std::swap(m_slices[i], m_slices[std::min(j, i)]);
        }
        m_next = 0;
    }
    double u = (m_slices[m_next++] + uniform->GetValue()) / m_block;
    return std::min(u, std::nextafter(1.0, 0.0));
}

} // namespace ns3
