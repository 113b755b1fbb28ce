#!/usr/bin/env bash
# readme_sql.sh - checks that every ```sql block of README.md appears, verbatim,
# in sql/cuckoo_readme.sql (the regression test that runs them), so that no
# example in the README goes untested.  Prints the blocks that are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
perl -e '
	local $/;
	open(my $r, "<", "README.md") or die "README.md: $!\n";
	open(my $t, "<", "sql/cuckoo_readme.sql") or die "sql/cuckoo_readme.sql: $!\n";
	my ($readme, $test) = (<$r>, <$t>);
	my ($n, $missing) = (0, 0);
	while ($readme =~ /^```sql\n(.*?)^```/msg) {
		$n++;
		next if index($test, $1) >= 0;
		$missing++;
		print "readme_sql: block $n of README.md is not in sql/cuckoo_readme.sql:\n$1\n";
	}
	die "readme_sql: no sql blocks found in README.md\n" if $n == 0;
	print "readme_sql: $n sql blocks of README.md, $missing missing from sql/cuckoo_readme.sql\n";
	exit($missing ? 1 : 0);
'
