//go:build ignore

// Command skipped reads the events of `go test -json` on stdin and prints
// what go test prints without -json (each package's result line, and the
// output of every test that failed), then every test that skipped, with
// the lines it logged, which hold its reason. A CI log then shows a test
// that did not run, and why, where go test alone prints "ok" for its
// package. Lines that are not events (a build failure) pass through.
//
//	go test -json ./... 2>&1 | go run .ci/skipped.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	if err := run(os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "skipped:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, stdout, stderr io.Writer) error {
	type key struct{ pkg, test string }
	output := map[key][]string{}
	var skipped []key
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(stdout, sc.Text())
			continue
		}
		k := key{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(stdout, e.Output) // a compile error
		case e.Action == "output" && e.Test == "":
			if e.Output != "PASS\n" {
				fmt.Fprint(stdout, e.Output)
			}
		case e.Action == "output":
			output[k] = append(output[k], e.Output)
		case e.Action == "fail" && e.Test != "":
			fmt.Fprint(stdout, strings.Join(output[k], ""))
		case e.Action == "skip" && e.Test != "":
			skipped = append(skipped, k)
		}
		if e.Test != "" && e.Action != "output" && e.Action != "run" && e.Action != "pause" && e.Action != "cont" && e.Action != "skip" {
			delete(output, k) // done, and not needed again
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(skipped) == 0 {
		return nil
	}
	fmt.Fprintln(stderr, "WARNING: tests skipped:")
	for _, k := range skipped {
		fmt.Fprintf(stderr, "--- SKIP: %s %s\n", k.pkg, k.test)
		for _, line := range output[k] {
			if !strings.HasPrefix(line, "=== ") && !strings.HasPrefix(strings.TrimSpace(line), "--- SKIP") {
				fmt.Fprint(stderr, line)
			}
		}
	}
	return nil
}
