// node --import ./node20.mjs: loads node20-hooks.mjs, which lets the conformance suite (built for node 22)
// run on node 20 with its servers bound to 127.0.0.1 only. See ../conformance_client.py for the command.
import { register } from 'node:module';
register('./node20-hooks.mjs', import.meta.url);
