/*
 * Runs this module's ns-3 test suites outside an ns-3 source tree (build against libns3-dev):
 *   mmcc-ns3-tests [--suite=mmcc-tcp] [--verbose]   (any ns-3 TestRunner option)
 * Inside an ns-3 tree the suite runs with ./test.py -s mmcc-tcp instead.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/test.h"

#include <string>
#include <vector>

int
main(int argc, char* argv[])
{
    std::vector<std::string> args(argv, argv + argc);
    bool suiteGiven = false;
    for (const auto& a : args)
    {
        suiteGiven = suiteGiven || a.rfind("--suite=", 0) == 0;
    }
    if (!suiteGiven)
    {
        args.emplace_back("--suite=mmcc-tcp");
    }
    std::vector<char*> cargs;
    for (auto& a : args)
    {
        cargs.push_back(a.data());
    }
    int n = static_cast<int>(cargs.size());
    cargs.push_back(nullptr); // argv[argc] is a null pointer
    return ns3::TestRunner::Run(n, cargs.data());
}
