import { createApp } from '@backstage/frontend-defaults';
import catalogPlugin from '@backstage/plugin-catalog/alpha';
import capzPlugin from '@capz-backstage/plugin-capz';
import { navModule } from './modules/nav';
import { signInModule } from './modules/signIn';

export default createApp({
  features: [catalogPlugin, capzPlugin, navModule, signInModule],
});
