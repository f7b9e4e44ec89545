#!/usr/bin/env node
// The CDK app (cdk.json: `npx tsx bin/cdk-app.ts`). The app synthesises itself when the process exits.
import { createPmailApp } from '../lib/app.ts';

createPmailApp();
