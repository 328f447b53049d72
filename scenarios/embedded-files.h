// Data files compiled into the programs, so that each has one source in the tree and the
// programs need no install path: the text of each file as it is in the repository.
#ifndef FLUMEN_EMBEDDED_FILES_H
#define FLUMEN_EMBEDDED_FILES_H

namespace flumen
{

/** scenarios/websearch_cdf.txt: the testbed generator's web-search flow-size CDF. */
extern const char* const kWebSearchCdfText;

} // namespace flumen

#endif
