export { AdoptWizard } from './AdoptWizard';
export { MigrateWizard } from './MigrateWizard';
export { UpgradeWizard } from './UpgradeWizard';
