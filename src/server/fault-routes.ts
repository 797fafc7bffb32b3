/**
 * The fault-injection API of the inspection router (server/faults.ts has the rules' meaning):
 *
 *   POST   /dynatwin/faults              a rule (JSON)           → 201 {id, rule, matched, faulted}
 *   GET    /dynatwin/faults                                      → {rules: [...]}
 *   GET    /dynatwin/faults/<id>                                 → one rule
 *   DELETE /dynatwin/faults/<id>                                 → the rule removed (404 if none)
 *   DELETE /dynatwin/faults                                      → {removed: <count>}
 */
import type { FaultRegistry } from './faults.js';
import { InspectionError, type InspectionRouter } from './inspection.js';

const FAULTS_PATH = /^\/dynatwin\/faults\/?$/;
const FAULT_PATH = /^\/dynatwin\/faults\/([^/]+)\/?$/;

export function registerFaultRoutes(router: InspectionRouter, faults: FaultRegistry): void {
  router.post(FAULTS_PATH, (request) => ({ status: 201, body: faults.add(request.body) }));
  router.get(FAULTS_PATH, () => ({ status: 200, body: { rules: faults.list() } }));
  router.delete(FAULTS_PATH, () => ({ status: 200, body: { removed: faults.clear() } }));
  router.get(FAULT_PATH, (request) => ({ status: 200, body: found(faults.get(request.params[0]!), request.params[0]!) }));
  router.delete(FAULT_PATH, (request) => ({ status: 200, body: found(faults.remove(request.params[0]!), request.params[0]!) }));
}

function found<T>(value: T | undefined, id: string): T {
  if (value === undefined) throw new InspectionError(404, `no fault rule ${id}`);
  return value;
}
