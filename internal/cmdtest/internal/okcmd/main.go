// Command okcmd prints "ok" and, with -serve, then waits for an interrupt: the binary cmdtest's
// own test builds and runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	serve := flag.Bool("serve", false, "print ok, then wait for an interrupt")
	flag.Parse()
	fmt.Println("ok")
	if *serve {
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt)
		fmt.Fprintln(os.Stderr, "waiting")
		<-c
	}
}
