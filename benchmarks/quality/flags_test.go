package quality

import "flag"

// irDir is the directory of public test collections (../shared/ir beside the checkout).
var irDir = flag.String("ir", "../../../shared/ir", "directory of test collections in the ../shared/ir layout")
