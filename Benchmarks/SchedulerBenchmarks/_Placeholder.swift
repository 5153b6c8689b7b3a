// Temporary: keeps the package graph loadable until this target's sources land. Delete me.
