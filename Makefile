# Makefile - builds the cuckoo PostgreSQL extension with PGXS.
# Extra warnings come from outside: make COPT="-Wall -Wextra -Werror".

EXTENSION = cuckoo
MODULE_big = cuckoo
OBJS = src/cuckoo.o src/cuckoo_sort.o src/cuckoo_pg.o src/cuckoo_hashval.o src/cuckoo_expanded.o src/cuckoo_selfuncs.o src/cuckoo_agg.o
DATA = cuckoo--1.0.sql cuckoo--1.0--1.1.sql
HEADERS_cuckoo = src/cuckoo.h

REGRESS = cuckoo_basic cuckoo_types cuckoo_input cuckoo_bulk cuckoo_plpgsql cuckoo_golden cuckoo_agg cuckoo_lifecycle cuckoo_planner cuckoo_encoding cuckoo_sets
REGRESS_OPTS = --load-extension=cuckoo

PG_CPPFLAGS = -I$(srcdir)/src


PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# soft input errors (pg_input_is_valid) exist from PostgreSQL 16 on
ifeq ($(shell test $(MAJORVERSION) -ge 16 && echo yes),yes)
REGRESS += cuckoo_soft_input
endif
