/** Loads every rule file; each registers its programs in RULES. */
import "./basic";
import "./sed";
import "./environment";
import "./read-outputs";
import "./files";
import "./ownership";
import "./disks";
import "./wrappers";
import "./exec";
import "./network";
import "./packages";
import "./system-packages";
import "./vcs";
import "./github";
import "./containers";
import "./infra";
import "./database";
