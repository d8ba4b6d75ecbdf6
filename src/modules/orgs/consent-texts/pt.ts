/** The default consent disclosure in Portuguese, one entry per paragraph (see ../consent-text.ts). */
export const pt: readonly string[] = [
  'Consentimento para o uso de documentos e assinaturas eletrônicos',
  'O remetente deste documento deseja disponibilizá-lo a você e obter a sua assinatura por meio eletrônico. Antes de continuar, leia as informações a seguir.',
  'Cópias em papel. Você tem o direito de receber este documento em papel. Para solicitar uma cópia em papel, entre em contato com o remetente pelos meios de contato que você já tem; ele poderá cobrar uma taxa razoável, desde que avise você previamente. Após a assinatura, você receberá o documento concluído por e-mail e poderá imprimi-lo.',
  'Revogação do consentimento. Você pode revogar o seu consentimento para tratar deste assunto por meio eletrônico a qualquer momento antes de assinar, escolhendo “Não concordo” nesta página ou informando o remetente. A revogação encerra esta solicitação de assinatura eletrônica: o documento é recusado, e o remetente deverá fornecê-lo a você em papel ou por outro meio. A revogação não afeta a validade jurídica de nada que você tenha assinado eletronicamente antes.',
  'Abrangência. O seu consentimento se aplica a este documento e às notificações sobre ele que enviamos a você por e-mail.',
  'Hardware e software. Você precisa de um dispositivo com acesso à internet, um navegador atualizado (como uma versão recente do Chrome, Edge, Firefox ou Safari) com JavaScript ativado, uma conta de e-mail e a possibilidade de visualizar e salvar ou imprimir arquivos PDF.',
  'Atualização dos seus dados de contato. Se o seu endereço de e-mail ou outros dados de contato mudarem, informe o remetente para que ele possa entrar em contato com você sobre este documento.',
  'Ao escolher “Concordo”, você confirma que consegue acessar e ler estas informações e documentos em PDF, e que concorda com o uso de documentos e assinaturas eletrônicos para este documento.',
];
