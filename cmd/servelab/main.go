// Command servelab turns LLM-serving tuning studies into trial plans,
// results and reports. See the README for the commands.
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }
