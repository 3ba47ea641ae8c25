// Package exampletest holds what the tests of the examples' subprocess
// agents share: skipping where Node.js or an agent's packages are
// missing, a scenario of one test's own in a temporary suite, and the
// check that an agent read its last scripted reply (the golden files pin
// what an agent sent, and the earlier replies show in its later
// requests, but only what it prints shows that it read the last one).
package exampletest
