// Command pgtestcmd prints "ok": the binary pgtest's own test builds with BuildCommand.
package main

import "fmt"

func main() { fmt.Println("ok") }
