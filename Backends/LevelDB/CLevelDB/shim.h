#include <leveldb/c.h>
