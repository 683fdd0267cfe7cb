// Package execute holds what turns a plan into results: the record
// format (execute/record), the results store (execute/store) and the
// importers of other tools' output (execute/importer). The engine
// launcher, benchmark client and scheduler come later.
//
// render and site depend only on execute/record, the data format; never
// on the parts that run processes.
package execute
